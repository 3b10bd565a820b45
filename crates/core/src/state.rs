//! [`State`]: every mutable byte of the emulated Game Boy. Copying it is a save state.
//!
//! The structs it is made of are re-exported here so that tools can read the machine
//! (`core.state().hw.ppu.ly`, `offset_of!(HwState, wram)` for rewind's delta models). Their
//! layout changes with the save-state format's minor version; their methods are the
//! emulator's own and not meant to be called from outside the core.
//!
//! Rules (see `docs/style.md`): `#[repr(C)]`, Pod, only unsigned integers and fixed
//! arrays, every field at a multiple of its own size, explicit zeroed `_pad`. Any bit pattern
//! is a valid `State`; code masks every index it takes from it. Frequently changing parts come
//! first and the large, rarely written regions last, which keeps rewind deltas compact.

pub use crate::apu::{ApuState, SynthState, ToneState, WaveState};
pub use crate::cart::{CART_RAM_MAX, MbcState};
pub use crate::cgb::CgbState;
pub use crate::cpu::{CpuMode, CpuState};
pub use crate::dma::DmaState;
pub use crate::joypad::JoypadState;
pub use crate::ppu::PpuState;
pub use crate::serial::SerialState;
pub use crate::timer::TimerState;

use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

/// Every mutable byte of the emulated Game Boy. Copying it is a save state.
#[derive(Clone, Copy, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct State {
    /// Borrowed by the CPU executor.
    pub cpu: CpuState,
    /// Borrowed by `Machine`, the `Bus` implementation.
    pub hw: HwState,
}

const _: () = assert!(size_of::<State>() <= 192 * 1024, "State outgrew its budget");
const _: () = assert!(size_of::<CpuState>().is_multiple_of(8));
const _: () = assert!(size_of::<TimerState>().is_multiple_of(8));
const _: () = assert!(size_of::<SerialState>().is_multiple_of(8));
const _: () = assert!(size_of::<JoypadState>().is_multiple_of(8));
const _: () = assert!(size_of::<DmaState>().is_multiple_of(8));
const _: () = assert!(size_of::<PpuState>().is_multiple_of(8));
const _: () = assert!(size_of::<ApuState>().is_multiple_of(8));
const _: () = assert!(size_of::<MbcState>().is_multiple_of(8));
const _: () = assert!(size_of::<CgbState>().is_multiple_of(8));

/// Everything but the CPU registers.
#[derive(Clone, Copy, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct HwState {
    /// M-cycles since power-on. Inputs are stamped with this clock.
    pub m_cycles: u64,
    /// Frames completed since power-on (VBlank entries, or LCD-off frame periods).
    pub frames: u64,
    /// CGB: the M-cycle at which the HALT that follows a speed switch ends by itself
    /// (0: no speed switch pause under way).
    #[state(since = 3)]
    pub speed_switch_wake_m_cycle: u64,
    /// DIV, TIMA, TMA, TAC and the system counter behind them.
    pub timer: TimerState,
    /// SB, SC and the transfer in progress.
    pub serial: SerialState,
    /// P1 and the buttons held.
    pub joypad: JoypadState,
    /// OAM DMA in progress.
    pub dma: DmaState,
    /// The LCD registers and the pixel pipeline's position.
    pub ppu: PpuState,
    /// The sound registers, channels and band-limited synthesis.
    pub apu: ApuState,
    /// The cartridge mapper's registers and the MBC3 clock.
    pub mbc: MbcState,
    /// The Game Boy Color's registers and palette RAM (on a DMG as `CgbState::zeroed_dmg`).
    #[state(since = 2)]
    pub cgb: CgbState,
    /// FF0F IF: requested interrupts (low five bits).
    pub interrupt_flag: u8,
    /// FFFF IE: enabled interrupts (all eight bits are read/write).
    pub interrupt_enable: u8,
    /// 1 while the boot ROM is mapped over 0x0000..=0x00FF (until a write to FF50).
    #[state(flag)]
    pub boot_rom_mapped: u8,
    /// A `Model`, stored raw.
    pub model_raw: u8,
    /// Alignment padding, kept zero.
    pub _pad: [u8; 4],
    /// FF80..=FFFE (index 127 unused).
    pub hram: [u8; 128],
    /// FE00..=FE9F object attribute memory.
    pub oam: [u8; 160],
    /// C000..=DFFF (echoed at E000..=FDFF): WRAM banks 0 and 1.
    pub wram: [u8; 0x2000],
    /// 8000..=9FFF: VRAM bank 0 (the DMG's only bank).
    pub vram: [u8; 0x2000],
    /// CGB: VRAM bank 1 (tile attributes, more tiles).
    #[state(since = 2)]
    pub vram_bank1: [u8; 0x2000],
    /// CGB: WRAM banks 2..=7, mapped at D000 by SVBK.
    #[state(since = 2)]
    pub wram_banks: [u8; 0x6000],
    /// A000..=BFFF through the mapper, sized for the largest supported cartridge.
    pub cart_ram: [u8; CART_RAM_MAX],
}

impl State {
    /// The raw bytes, as rewind snapshots and desync checks use them (host byte order).
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::bytes_of(self)
    }
}
