//! The Game Boy Color's extra registers: banks (VBK, SVBK), speed switch (KEY1), palette RAM
//! (BCPS/BCPD, OCPS/OCPD), object priority mode (OPRI), VRAM DMA (HDMA1-5), the infrared
//! port (RP) and the undocumented FF72-FF75. On a DMG, or on a CGB running a DMG cartridge
//! (compatibility mode), most of them are absent and read as FF.
//!
//! Register behaviour follows Pan Docs ("CGB Registers", "Palettes", "LCD VRAM DMA
//! Transfers") and Mooneye's `boot_hwio-C` / `unused_hwio-C` read masks.

use crate::io;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

/// `CgbState::mode` values (stored raw).
pub const MODE_DMG: u8 = 0;
/// A CGB running a DMG cartridge: DMG registers and pipeline, colours from palette RAM.
pub const MODE_COMPATIBILITY: u8 = 1;
/// A CGB running a CGB cartridge: every CGB feature.
pub const MODE_CGB: u8 = 2;

/// HDMA5 bit 7 in `hdma_remaining`: set while no HBlank transfer is running.
const HDMA_IDLE: u8 = 0x80;
/// Kept in unused bits of `CgbState::key1` (which read 1 whatever they hold; no save-state
/// field of their own): STOP mode has just begun, and what it will cut the PPU off from is
/// decided after its first M-cycle (`Machine::stopped_cgb_output`).
pub(crate) const KEY1_STOP_BEGUN: u8 = 0x02;
/// In `key1`: STOP mode cut the PPU off from palette RAM until the wake-up (`ppu/stopped.rs`).
pub(crate) const KEY1_STOP_PALETTES_CUT: u8 = 0x04;
/// In `key1`: STOP mode cut the PPU off from VRAM until the wake-up (`ppu/stopped.rs`).
pub(crate) const KEY1_STOP_VRAM_CUT: u8 = 0x08;
/// Every STOP bit of `key1`.
pub(crate) const KEY1_STOP_BITS: u8 = KEY1_STOP_BEGUN | KEY1_STOP_PALETTES_CUT | KEY1_STOP_VRAM_CUT;

/// Everything the CGB adds, besides VRAM bank 1 and WRAM banks 2..=7 (in `HwState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct CgbState {
    /// `MODE_DMG`, `MODE_COMPATIBILITY` or `MODE_CGB`: fixed at power-on (or by the boot
    /// ROM's KEY0 write) and decoded with `mode()`.
    #[state(below = MODE_CGB + 1)]
    pub mode_raw: u8,
    /// FF4C KEY0: bit 2 set = DMG compatibility mode. Writable only while the boot ROM is
    /// mapped.
    pub key0: u8,
    /// FF4D KEY1: bit 0 = switch armed, bit 7 = double speed. Bits 1-3, which read 1
    /// whatever they hold, keep STOP mode's cut-off (`KEY1_STOP_BITS`).
    pub key1: u8,
    /// FF4F VBK: bit 0 selects the VRAM bank the CPU sees.
    pub vbk: u8,
    /// FF70 SVBK: bits 0..=2 select the WRAM bank at D000 (0 acts as 1).
    pub svbk: u8,
    /// FF68 BCPS / FF6A OCPS: palette RAM index (bits 0..=5) and auto-increment (bit 7).
    pub bcps: u8,
    pub ocps: u8,
    /// FF6C OPRI: bit 0 set = objects overlap by X (DMG style), clear = by OAM index.
    /// Writable only while the boot ROM is mapped; bit 1 set when a later write (which
    /// reads back but changes nothing) left the other value.
    pub opri: u8,
    /// FF51..=FF54 HDMA1-4: source and destination counters (low 4 bits ignored). The
    /// destination keeps all 16 bits although only bits 4..=12 address VRAM: a transfer
    /// ends when it carries out of bit 15 (`hdma_next_block`).
    pub hdma_source_high: u8,
    pub hdma_source_low: u8,
    pub hdma_dest_high: u8,
    pub hdma_dest_low: u8,
    /// FF55 HDMA5 as read: bit 7 set while idle, else the 16-byte blocks left minus one.
    pub hdma_remaining: u8,
    /// 1 when the HBlank transfer has already copied its block in the current HBlank.
    #[state(flag)]
    pub hdma_done_this_hblank: u8,
    /// FF56 RP: bits 0 (LED) and 6..=7 (read enable) as written.
    pub rp: u8,
    /// FF72..=FF75: FF72/FF73 read/write, FF74 read/write in CGB mode only, FF75 bits 4..=6.
    pub ff72: u8,
    pub ff73: u8,
    pub ff74: u8,
    pub ff75: u8,
    pub _pad: [u8; 5],
    /// Background palette RAM: 8 palettes of 4 colours, little-endian RGB555.
    pub bg_palettes: [u8; 64],
    /// Object palette RAM, the same layout.
    pub obj_palettes: [u8; 64],
}

impl CgbState {
    /// A DMG: no CGB hardware (every field zero).
    pub fn zeroed_dmg() -> CgbState {
        let mut cgb = CgbState::zeroed();
        cgb.hdma_remaining = 0xFF;
        cgb
    }

    /// The state after power-on for `mode` (before any boot ROM runs, or as the CGB boot ROM
    /// leaves it: the two agree on these registers).
    pub fn power_on(mode: u8) -> CgbState {
        let mut cgb = CgbState::zeroed();
        cgb.mode_raw = mode;
        cgb.key0 = if mode == MODE_COMPATIBILITY { 0x04 } else { 0 };
        cgb.hdma_remaining = 0xFF;
        cgb.hdma_source_high = 0xFF;
        cgb.hdma_source_low = 0xFF;
        cgb.hdma_dest_high = 0xFF;
        cgb.hdma_dest_low = 0xFF;
        cgb
    }

    /// `MODE_DMG`, `MODE_COMPATIBILITY` or `MODE_CGB` (unknown values act as a DMG).
    pub fn mode(&self) -> u8 {
        match self.mode_raw {
            MODE_COMPATIBILITY => MODE_COMPATIBILITY,
            MODE_CGB => MODE_CGB,
            _ => MODE_DMG,
        }
    }

    /// Whether the CGB-mode registers (banks, palettes through BCPD, HDMA, ...) exist.
    pub fn cgb_mode(&self) -> bool {
        self.mode() == MODE_CGB
    }

    /// Whether the hardware is a CGB (CGB or compatibility mode).
    pub fn is_cgb(&self) -> bool {
        self.mode() != MODE_DMG
    }

    /// Whether the CPU runs at double speed.
    pub fn double_speed(&self) -> bool {
        self.key1 & 0x80 != 0
    }

    /// The WRAM bank mapped at D000..=DFFF (1..=7).
    pub fn wram_bank(&self) -> usize {
        if !self.cgb_mode() {
            return 1;
        }
        usize::from(self.svbk & 7).max(1)
    }

    /// Whether an HBlank transfer is waiting for its next HBlank.
    pub fn hdma_hblank_active(&self) -> bool {
        self.hdma_remaining & HDMA_IDLE == 0 && self.cgb_mode()
    }

    /// The next 16-byte VRAM DMA block: source address and VRAM offset (0..0x2000).
    /// Advances both counters and counts the block; returns true in `.2` when the transfer
    /// is over: its last block, or the destination counter wrapped from $FFF0 to 0, which
    /// ends it with the blocks left unsent (HDMA5 then reads them minus one with bit 7
    /// set, FF after the last block). Above bit 12 the destination only counts: $9FF0 goes
    /// on at $8000 (bit 13 set), $FFF0 stops. UNVERIFIED: SameBoy's rule, which Pan Docs
    /// ("bits 12-4 respected") does not cover.
    pub fn hdma_next_block(&mut self) -> (u16, u16, bool) {
        let source = u16::from_be_bytes([self.hdma_source_high, self.hdma_source_low]) & 0xFFF0;
        let dest = u16::from_be_bytes([self.hdma_dest_high, self.hdma_dest_low]) & 0xFFF0;
        let next_dest = dest.wrapping_add(16);
        [self.hdma_source_high, self.hdma_source_low] = source.wrapping_add(16).to_be_bytes();
        [self.hdma_dest_high, self.hdma_dest_low] = next_dest.to_be_bytes();
        let last = self.hdma_remaining & 0x7F == 0;
        let wrapped = next_dest == 0;
        self.hdma_remaining = if last {
            0xFF
        } else if wrapped {
            HDMA_IDLE | ((self.hdma_remaining & 0x7F) - 1)
        } else {
            (self.hdma_remaining & HDMA_IDLE) | ((self.hdma_remaining & 0x7F) - 1)
        };
        (source, dest & 0x1FF0, last || wrapped)
    }

    /// A CGB register read (FF4C..=FF7F, FF56), `None` for addresses this module does not own.
    /// `palette_locked`: the PPU keeps palette RAM (`PpuState::palette_locked`), which reads FF.
    pub fn read(&self, reg: u8, palette_locked: bool) -> Option<u8> {
        if !self.is_cgb() {
            return None;
        }
        let cgb = self.cgb_mode();
        let value = match reg {
            io::KEY1 if cgb => self.key1 | 0x7E,
            // Compatibility mode: bank 0, still readable (Mooneye `boot_hwio-C`).
            io::VBK => self.vbk | 0xFE,
            io::HDMA5 if cgb => self.hdma_remaining,
            // Bits 1-3 and 5 read 1 (bit 1: no infrared light); bit 4 reads 0 on the CGB-E
            // (UNVERIFIED: SameBoy's, which reads 1 there on earlier revisions; Pan Docs
            // names only bits 0, 1, 6 and 7).
            io::RP if cgb => self.rp | 0x2E,
            // The index registers stay readable in compatibility mode, as the boot ROM
            // left them (Mooneye `boot_hwio-C`: C8 and D0); the data registers read FF.
            io::BCPS => self.bcps | 0x40,
            io::OCPS => self.ocps | 0x40,
            io::BCPD if cgb => {
                if palette_locked {
                    0xFF
                } else {
                    self.bg_palettes[usize::from(self.bcps & 0x3F)]
                }
            }
            io::OCPD if cgb => {
                if palette_locked {
                    0xFF
                } else {
                    self.obj_palettes[usize::from(self.ocps & 0x3F)]
                }
            }
            io::OPRI if cgb => (self.opri ^ (self.opri >> 1)) & 1 | 0xFE,
            io::SVBK if cgb => self.svbk | 0xF8,
            0x72 => self.ff72,
            0x73 => self.ff73,
            0x74 if cgb => self.ff74,
            0x75 => self.ff75 | 0x8F,
            _ => return None,
        };
        Some(value)
    }

    /// A CGB register write; returns false for addresses this module does not own.
    /// `boot_rom_mapped`: KEY0 is writable only then. `palette_locked` as for `read`.
    /// HDMA5 is handled by the machine (it may start a transfer).
    pub fn write(
        &mut self,
        reg: u8,
        value: u8,
        boot_rom_mapped: bool,
        palette_locked: bool,
    ) -> bool {
        if !self.is_cgb() {
            return false;
        }
        let cgb = self.cgb_mode();
        match reg {
            io::KEY0 if boot_rom_mapped => {
                self.key0 = value;
                if value & 0x04 != 0 {
                    self.mode_raw = MODE_COMPATIBILITY;
                }
            }
            io::KEY1 if cgb => self.key1 = (self.key1 & 0x80) | (value & 1),
            io::VBK if cgb => self.vbk = value & 1,
            io::HDMA1 if cgb => self.hdma_source_high = value,
            io::HDMA2 if cgb => self.hdma_source_low = value & 0xF0,
            io::HDMA3 if cgb => self.hdma_dest_high = value,
            io::HDMA4 if cgb => self.hdma_dest_low = value & 0xF0,
            io::RP if cgb => self.rp = value & 0xC1,
            io::BCPS => self.bcps = value & 0xBF,
            io::OCPS => self.ocps = value & 0xBF,
            // The compatibility-mode boot ROM writes the chosen palettes while still mapped.
            io::BCPD if cgb || boot_rom_mapped => {
                if !palette_locked {
                    self.bg_palettes[usize::from(self.bcps & 0x3F)] = value;
                }
                self.bcps = auto_increment(self.bcps);
            }
            io::OCPD if cgb || boot_rom_mapped => {
                if !palette_locked {
                    self.obj_palettes[usize::from(self.ocps & 0x3F)] = value;
                }
                self.ocps = auto_increment(self.ocps);
            }
            // The boot ROM sets the priority mode and locks it: once it is unmapped, writes
            // have no effect (Pan Docs "OPRI"; Matt Currie found the register's purpose by
            // writing it before the boot ROM locked it, cgb-acid2 issue 1). UNVERIFIED: what
            // a post-boot write reads back; here its value (SameBoy's), kept in bit 1 as its
            // difference from the locked mode in bit 0.
            io::OPRI if boot_rom_mapped => self.opri = value & 1,
            io::OPRI if cgb => self.opri = (self.opri & 1) | ((value ^ self.opri) & 1) << 1,
            io::SVBK if cgb => self.svbk = value & 7,
            0x72 => self.ff72 = value,
            0x73 => self.ff73 = value,
            0x74 if cgb => self.ff74 = value,
            0x75 => self.ff75 = value & 0x70,
            _ => return false,
        }
        true
    }

    /// The RGB555 colour `colour` (0..=3) of background palette `palette` (0..=7).
    #[inline]
    pub fn bg_colour(&self, palette: u8, colour: u8) -> u16 {
        palette_colour(&self.bg_palettes, palette, colour)
    }

    /// The RGB555 colour `colour` (0..=3) of object palette `palette` (0..=7).
    #[inline]
    pub fn obj_colour(&self, palette: u8, colour: u8) -> u16 {
        palette_colour(&self.obj_palettes, palette, colour)
    }
}

/// A palette index register after a data write: bits 0..=5 count up (wrapping) when bit 7
/// is set.
fn auto_increment(index: u8) -> u8 {
    if index & 0x80 != 0 {
        0x80 | (index.wrapping_add(1) & 0x3F)
    } else {
        index
    }
}

fn palette_colour(ram: &[u8; 64], palette: u8, colour: u8) -> u16 {
    palette_colours(ram, palette)[usize::from(colour & 3)]
}

/// Palette `palette`'s (0..=7) four RGB555 colours in palette RAM (`bg_palettes` or
/// `obj_palettes`: eight bytes a palette, little-endian colours, bit 15 unused).
#[inline(always)]
pub(crate) fn palette_colours(ram: &[u8; 64], palette: u8) -> [u16; 4] {
    let (palettes, _) = ram.as_chunks::<8>();
    let lanes = u64::from_le_bytes(palettes[usize::from(palette & 7)]);
    core::array::from_fn(|c| (lanes >> (16 * c)) as u16 & 0x7FFF)
}

// The RGB555 expansion lives with the other host-side colour conversions; the palette tests
// reach it here.
#[cfg(test)]
pub(crate) use crate::screen::rgb555_to_rgb888;

/// Palette RAM as the CGB boot ROM leaves it. CGB mode: every colour white. Compatibility
/// mode: background palette 0 and object palettes 0 and 1 hold `compatibility` (what the
/// boot ROM picks for the cartridge, [`crate::compatibility_palettes::for_cartridge`]), with
/// the index registers where the boot ROM's writes left them (Mooneye `boot_hwio-C`: BCPS
/// C8, OCPS D0).
/// UNVERIFIED: object palette RAM in CGB mode is left uninitialised on hardware.
pub fn write_boot_palettes(
    cgb: &mut CgbState,
    compatibility: &crate::compatibility_palettes::CompatibilityPalettes,
) {
    let fill = |ram: &mut [u8; 64], palette: usize, colours: [u16; 4]| {
        for (index, colour) in colours.iter().enumerate() {
            let at = palette * 8 + index * 2;
            ram[at..at + 2].copy_from_slice(&colour.to_le_bytes());
        }
    };
    if cgb.cgb_mode() {
        cgb.bg_palettes = [0xFF; 64];
        cgb.obj_palettes = [0xFF; 64];
        for at in (1..64).step_by(2) {
            cgb.bg_palettes[at] = 0x7F;
            cgb.obj_palettes[at] = 0x7F;
        }
    } else {
        fill(&mut cgb.bg_palettes, 0, compatibility.bg);
        fill(&mut cgb.obj_palettes, 0, compatibility.obj0);
        fill(&mut cgb.obj_palettes, 1, compatibility.obj1);
        cgb.bcps = 0xC8;
        cgb.ocps = 0xD0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_writes_auto_increment_and_wrap() {
        let mut cgb = CgbState::power_on(MODE_CGB);
        cgb.write(io::BCPS, 0xBF, false, false);
        cgb.write(io::BCPD, 0x12, false, false);
        assert_eq!(cgb.bg_palettes[63], 0x12);
        assert_eq!(cgb.read(io::BCPS, false), Some(0xC0));
        // Locked (mode 3): the write is lost but the index still moves on.
        cgb.write(io::BCPD, 0x34, false, true);
        assert_eq!(cgb.bg_palettes[0], 0);
        assert_eq!(cgb.read(io::BCPS, false), Some(0xC1));
    }

    #[test]
    fn palette_data_reads_ff_while_locked() {
        let mut cgb = CgbState::power_on(MODE_CGB);
        cgb.write(io::OCPS, 0x05, false, false);
        cgb.write(io::OCPD, 0x77, false, false);
        assert_eq!(cgb.read(io::OCPD, true), Some(0xFF));
        assert_eq!(cgb.read(io::OCPD, false), Some(0x77));
        // Without auto-increment a locked write changes nothing at all.
        cgb.write(io::OCPD, 0x11, false, true);
        assert_eq!(cgb.read(io::OCPD, false), Some(0x77));
        assert_eq!(cgb.read(io::OCPS, false), Some(0x45));
    }

    #[test]
    fn object_priority_mode_is_locked_after_boot() {
        let mut cgb = CgbState::power_on(MODE_CGB);
        assert!(cgb.write(io::OPRI, 1, true, false));
        assert_eq!(cgb.read(io::OPRI, false), Some(0xFF));
        // Boot ROM unmapped: the write is taken (no other register answers) and reads back,
        // but the mode stays.
        assert!(cgb.write(io::OPRI, 0, false, false));
        assert_eq!(cgb.opri & 1, 1);
        assert_eq!(cgb.read(io::OPRI, false), Some(0xFE));
        assert!(cgb.write(io::OPRI, 1, false, false));
        assert_eq!(cgb.opri, 1);
        assert_eq!(cgb.read(io::OPRI, false), Some(0xFF));
        // Compatibility mode: the register reads FF and ignores writes as well.
        let mut compatible = CgbState::power_on(MODE_COMPATIBILITY);
        compatible.write(io::OPRI, 1, false, false);
        assert_eq!(compatible.opri, 0);
        assert_eq!(compatible.read(io::OPRI, false), None);
    }
}
