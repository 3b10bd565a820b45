//! I/O register addresses (low byte of 0xFF00 + n), spelled as in Pan Docs.
#![allow(missing_docs)]

pub const P1: u8 = 0x00;
pub const SB: u8 = 0x01;
pub const SC: u8 = 0x02;
pub const DIV: u8 = 0x04;
pub const TIMA: u8 = 0x05;
pub const TMA: u8 = 0x06;
pub const TAC: u8 = 0x07;
pub const IF: u8 = 0x0F;
pub const NR10: u8 = 0x10;
pub const NR52: u8 = 0x26;
pub const WAVE_RAM: u8 = 0x30;
pub const LCDC: u8 = 0x40;
pub const STAT: u8 = 0x41;
pub const SCY: u8 = 0x42;
pub const SCX: u8 = 0x43;
pub const LY: u8 = 0x44;
pub const LYC: u8 = 0x45;
pub const DMA: u8 = 0x46;
pub const BGP: u8 = 0x47;
pub const OBP0: u8 = 0x48;
pub const OBP1: u8 = 0x49;
pub const WY: u8 = 0x4A;
pub const WX: u8 = 0x4B;
/// CGB: compatibility-mode switch (boot ROM only), speed switch, VRAM bank.
pub const KEY0: u8 = 0x4C;
pub const KEY1: u8 = 0x4D;
pub const VBK: u8 = 0x4F;
/// Writing a non-zero value unmaps the boot ROM.
pub const BOOT: u8 = 0x50;
/// CGB VRAM DMA: source high/low, destination high/low, length/mode/start.
pub const HDMA1: u8 = 0x51;
pub const HDMA2: u8 = 0x52;
pub const HDMA3: u8 = 0x53;
pub const HDMA4: u8 = 0x54;
pub const HDMA5: u8 = 0x55;
/// CGB infrared port.
pub const RP: u8 = 0x56;
/// CGB palette RAM: background index/data, object index/data; object priority mode.
pub const BCPS: u8 = 0x68;
pub const BCPD: u8 = 0x69;
pub const OCPS: u8 = 0x6A;
pub const OCPD: u8 = 0x6B;
pub const OPRI: u8 = 0x6C;
/// CGB WRAM bank.
pub const SVBK: u8 = 0x70;
/// CGB APU: the digital outputs of channels 1/2 and 3/4.
pub const PCM12: u8 = 0x76;
pub const PCM34: u8 = 0x77;

/// Interrupt bits in IF and IE.
pub const INT_VBLANK: u8 = 1 << 0;
pub const INT_STAT: u8 = 1 << 1;
pub const INT_TIMER: u8 = 1 << 2;
pub const INT_SERIAL: u8 = 1 << 3;
pub const INT_JOYPAD: u8 = 1 << 4;
