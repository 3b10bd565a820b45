//! Cartridges: the immutable ROM with its parsed header ([`Rom`]), and the mapper (MBC)
//! registers that live in [`State`](crate::State) ([`MbcState`]).
//!
//! The split follows the style guide: everything that can change lives in `MbcState` (plain
//! bytes, any bit pattern valid), everything fixed by the cartridge lives in `Rom`. `Rom::read`
//! runs for every instruction fetch, so register writes precompute the bank offsets it needs
//! and every index is masked to the (power-of-two) ROM and RAM sizes: a corrupt or random
//! `MbcState` reads odd bytes but can never index out of bounds.
//!
//! Register names follow Gekkio's "Game Boy: Complete Technical Reference": RAMG, BANK1,
//! BANK2, MODE (MBC1), ROMB0, ROMB1, RAMB (MBC5; MBC2 and MBC3 use ROMB0 and RAMB too).

mod battery;
mod header;
mod mbc1;
mod mbc2;
mod mbc3;
mod mbc5;
#[cfg(test)]
mod tests;

pub use battery::BatteryError;
#[cfg(test)]
use header::NINTENDO_LOGO;
pub use header::{Header, MAX_ROM_BYTES, MbcKind};

use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};
use std::sync::{Arc, OnceLock};

/// Cartridge RAM big enough for the largest supported cartridge (MBC5, 128 KiB).
pub const CART_RAM_MAX: usize = 128 * 1024;

/// Why a file cannot be used as a cartridge.
#[derive(Debug, thiserror::Error)]
pub enum RomError {
    #[error("file is {len} bytes; a Game Boy ROM is at least 32 KiB")]
    TooSmall { len: usize },
    #[error("{name} (${code:02X}) is not supported")]
    UnsupportedCartridge { code: u8, name: &'static str },
    #[error("unknown cartridge type ${code:02X} in the header")]
    UnknownCartridge { code: u8 },
    #[error("invalid ROM size code ${code:02X} in the header (valid: $00-$08)")]
    InvalidRomSize { code: u8 },
    #[error("invalid RAM size code ${code:02X} in the header (valid: $00-$05)")]
    InvalidRamSize { code: u8 },
    #[error(
        "truncated: header says {}, file is {}",
        header::kib(*declared),
        header::kib(*actual)
    )]
    Truncated { declared: usize, actual: usize },
}

/// Mapper registers, precomputed bank offsets and the MBC3 real-time clock.
///
/// Any bit pattern is valid: `Rom` masks every offset and index taken from here. The offsets
/// are a pure function of the registers (and the `Rom`), recomputed on every register write.
/// One layout serves every mapper; each uses the registers it has and ignores the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct MbcState {
    /// MBC3 RTC: the M-cycle up to which the clock has been brought up to date. The clock
    /// advances lazily from here whenever it is latched, written or advanced by the host.
    pub rtc_updated_at: u64,
    /// Byte offset into the ROM mapped at 0000-3FFF (masked to the ROM size at use).
    pub rom_offset_low: u32,
    /// Byte offset into the ROM mapped at 4000-7FFF (masked to the ROM size at use).
    pub rom_offset_high: u32,
    /// Byte offset into cartridge RAM mapped at A000-BFFF (masked to the RAM size at use).
    pub ram_offset: u32,
    /// MBC3 RTC: M-cycles into the current second (1,048,576 make a second; larger values,
    /// possible only in a corrupt state, just tick at the next update).
    pub rtc_subsecond: u32,
    /// RAMG: 1 when cartridge RAM (and the RTC) is enabled.
    #[state(flag)]
    pub ramg: u8,
    /// MBC1 BANK1: low 5 bits of the ROM bank at 4000-7FFF, never 0 (a write of 0 stores 1).
    pub bank1: u8,
    /// MBC1 BANK2: 2 bits, ROM bank bits 5-6 (4-5 on multicarts) and the RAM bank in mode 1.
    #[state(below = 4)]
    pub bank2: u8,
    /// MBC1 MODE: 1 bit; 1 applies BANK2 to 0000-3FFF and to RAM too.
    #[state(flag)]
    pub mode: u8,
    /// ROMB0: ROM bank low 8 bits (MBC5), the 7-bit ROM bank (MBC3), the 4-bit one (MBC2).
    pub romb0: u8,
    /// MBC5 ROMB1: ROM bank bit 8.
    pub romb1: u8,
    /// RAMB: RAM bank (MBC5: bit 3 is the rumble motor on rumble carts); on MBC3, $08-$0C
    /// select an RTC register instead of RAM.
    pub ramb: u8,
    /// MBC3: the last value written to 6000-7FFF (any write there latches the clock).
    pub rtc_latch_last_write: u8,
    /// MBC3 RTC counting registers: seconds, minutes, hours, day low, day high (bit 0 day
    /// bit 8, bit 6 halt, bit 7 day carry). Stored masked to their valid bits.
    pub rtc_live: [u8; 5],
    /// MBC3 RTC: the copy the CPU reads, taken by a write to 6000-7FFF.
    pub rtc_latched: [u8; 5],
    pub _pad: [u8; 6],
}

/// An immutable ROM image with its parsed header.
#[derive(Clone)]
pub struct Rom {
    /// The file as loaded.
    bytes: Arc<[u8]>,
    /// The image the CPU sees: `bytes` padded with $FF to a power of two (shares `bytes` when
    /// it already is one), at most `MAX_ROM_BYTES`.
    mapped: Arc<[u8]>,
    /// `mapped` as pairs of banks (`paired_image`): what `flat_window` hands out.
    paired: Arc<[u8]>,
    /// `mapped.len() - 1`.
    rom_mask: usize,
    /// RAM size - 1 (every size is a power of two); 0 without RAM.
    ram_mask: usize,
    header: Header,
    warnings: Vec<String>,
    /// SHA-1 of `bytes`, computed on first use (save-state files name their ROM by it) and
    /// shared by clones.
    sha1: Arc<OnceLock<[u8; 20]>>,
}

impl std::fmt::Debug for Rom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rom")
            .field("len", &self.bytes.len())
            .field("header", &self.header)
            .field("warnings", &self.warnings)
            .finish()
    }
}

/// `mapped` laid out for `Rom::flat_window`: pair `n`, at `n * 0x8000`, is bank 0 followed
/// by bank `n`, so that one 32 KiB array answers every ROM address while the low window maps
/// bank 0: twice the image, built once per image.
fn paired_image(mapped: &[u8]) -> Arc<[u8]> {
    let mut paired = Vec::with_capacity(mapped.len() * 2);
    for bank in mapped.chunks_exact(0x4000) {
        paired.extend_from_slice(&mapped[..0x4000]);
        paired.extend_from_slice(bank);
    }
    paired.into()
}

impl Rom {
    /// Parses and validates a ROM image. Never panics, whatever the bytes.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Rom, RomError> {
        let (header, warnings) = header::parse(&bytes)?;
        let bytes: Arc<[u8]> = bytes.into();
        // `parse` guarantees MIN_ROM_BYTES <= len; round up to a power of two so that bank
        // numbers wrap with a mask, and cap at the largest ROM any supported MBC addresses.
        let mapped_len = bytes
            .len()
            .checked_next_power_of_two()
            .unwrap_or(MAX_ROM_BYTES)
            .min(MAX_ROM_BYTES);
        let mapped: Arc<[u8]> = if mapped_len == bytes.len() {
            Arc::clone(&bytes)
        } else {
            let mut padded = vec![0xFF; mapped_len];
            let copied = bytes.len().min(mapped_len);
            padded[..copied].copy_from_slice(&bytes[..copied]);
            padded.into()
        };
        let ram_mask = header.ram_bytes.saturating_sub(1);
        debug_assert!(header.ram_bytes.is_power_of_two() || header.ram_bytes == 0);
        debug_assert!(header.ram_bytes <= CART_RAM_MAX);
        Ok(Rom {
            bytes,
            rom_mask: mapped_len - 1,
            paired: paired_image(&mapped),
            mapped,
            ram_mask,
            header,
            warnings,
            sha1: Arc::default(),
        })
    }

    /// A copy whose CPU-visible image has `patches` (file offset, byte) applied over the file
    /// as loaded, as a cheat device between cartridge and console would: the file itself,
    /// and so the header and the SHA-1 save states name the cartridge by, stay as loaded.
    /// Offsets past the image are ignored. No patches gives back the unpatched image.
    pub(crate) fn with_patches(&self, patches: &[(usize, u8)]) -> Rom {
        let mut rom = self.clone();
        let padded_len = self.rom_mask + 1;
        if patches.is_empty() && padded_len == self.bytes.len() {
            rom.mapped = Arc::clone(&self.bytes);
            rom.paired = paired_image(&rom.mapped);
            return rom;
        }
        let mut image = vec![0xFF; padded_len];
        let copied = self.bytes.len().min(padded_len);
        image[..copied].copy_from_slice(&self.bytes[..copied]);
        for &(offset, value) in patches {
            if let Some(byte) = image.get_mut(offset) {
                *byte = value;
            }
        }
        rom.mapped = image.into();
        rom.paired = paired_image(&rom.mapped);
        rom
    }

    /// The raw image as loaded.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// SHA-1 of the file as loaded: the identity save-state files check.
    pub fn sha1(&self) -> [u8; 20] {
        *self
            .sha1
            .get_or_init(|| crate::state_file::checksum::sha1(&self.bytes))
    }

    /// The title from the header (0x134..), printable ASCII only.
    pub fn title(&self) -> String {
        self.header.title.clone()
    }

    /// Everything the header says.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Problems worth telling the user that do not stop the cartridge from running (bad
    /// checksums, logo, size mismatches), one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// True when the cartridge keeps RAM or a clock across power-off (see `battery_bytes`).
    pub fn has_battery(&self) -> bool {
        self.header.has_battery
    }

    // Hidden from the docs: the mapper as the memory map drives it (and tests/cart_fuzz.rs);
    // hosts use `Core` (`Core::rumble`, `Core::rtc_advance_seconds`, ...).
    #[doc(hidden)]
    /// Rumble carts (MBC5 $1C-$1E): whether the motor is on now. The host polls this.
    pub fn rumble(&self, mbc: &MbcState) -> bool {
        self.header.has_rumble && mbc.ramb & mbc5::RUMBLE_MOTOR != 0
    }

    #[doc(hidden)]
    /// Mapper state right after power-on.
    pub fn power_on_mbc(&self) -> MbcState {
        let mut mbc = MbcState::zeroed();
        // Gekkio: BANK1 and ROMB0 power on as 1 (bank 1 at 4000-7FFF).
        mbc.bank1 = 1;
        mbc.romb0 = 1;
        mbc.rtc_latch_last_write = 0xFF;
        self.update_offsets(&mut mbc);
        mbc
    }

    #[doc(hidden)]
    /// Recomputes the offsets in `mbc` from its registers. Called after every register write;
    /// also usable to repair a state whose offsets were edited by hand.
    pub fn update_offsets(&self, mbc: &mut MbcState) {
        match self.header.mbc_kind {
            MbcKind::RomOnly => {
                mbc.rom_offset_low = 0;
                mbc.rom_offset_high = 0x4000;
                mbc.ram_offset = 0;
            }
            MbcKind::Mbc1 => mbc1::update_offsets(self.header.mbc1_multicart, mbc),
            MbcKind::Mbc2 => mbc2::update_offsets(mbc),
            MbcKind::Mbc3 => mbc3::update_offsets(mbc),
            MbcKind::Mbc5 => mbc5::update_offsets(self.header.has_rumble, mbc),
        }
    }

    /// CPU read of 0x0000..=0x7FFF.
    #[inline(always)]
    #[doc(hidden)]
    pub fn read(&self, mbc: &MbcState, addr: u16) -> u8 {
        let offset = if addr < 0x4000 {
            mbc.rom_offset_low
        } else {
            mbc.rom_offset_high
        };
        let index = (offset as usize).wrapping_add(usize::from(addr & 0x3FFF)) & self.rom_mask;
        self.mapped[index]
    }

    /// The 32 KiB a CPU read of 0x0000..=0x7FFF sees now, as one array indexed by the
    /// address, when the low window maps bank 0 (every MBC but an MBC1 in mode 1 on a large
    /// ROM or a multicart): indexing it gives what `read` gives, byte for byte. `None`
    /// otherwise, or when the high bank's offset is not on a 16 KiB boundary.
    #[inline]
    pub(crate) fn flat_window(&self, mbc: &MbcState) -> Option<&[u8; 0x8000]> {
        if mbc.rom_offset_low as usize & self.rom_mask != 0 || mbc.rom_offset_high & 0x3FFF != 0 {
            return None;
        }
        let bank = (mbc.rom_offset_high as usize & self.rom_mask) >> 14;
        self.paired
            .get(bank * 0x8000..(bank + 1) * 0x8000)?
            .try_into()
            .ok()
    }

    /// The bank of this ROM (16 KiB each, counted from the start of the file as mapped)
    /// that a CPU read of `addr` (0x0000..=0x7FFF) reaches, as `read` computes it.
    pub(crate) fn bank_at(&self, mbc: &MbcState, addr: u16) -> u16 {
        let offset = if addr < 0x4000 {
            mbc.rom_offset_low
        } else {
            mbc.rom_offset_high
        };
        let index = (offset as usize).wrapping_add(usize::from(addr & 0x3FFF)) & self.rom_mask;
        // At most MAX_ROM_BYTES / 16 KiB banks, which fits a u16.
        (index >> 14) as u16
    }

    /// CPU write to 0x0000..=0x7FFF (mapper registers). `now` is the machine's M-cycle count.
    #[inline]
    #[doc(hidden)]
    pub fn write(&self, mbc: &mut MbcState, addr: u16, value: u8, now: u64) {
        match self.header.mbc_kind {
            MbcKind::RomOnly => {}
            MbcKind::Mbc1 => mbc1::write(self.header.mbc1_multicart, mbc, addr, value),
            MbcKind::Mbc2 => mbc2::write(mbc, addr, value),
            MbcKind::Mbc3 => mbc3::write(self, mbc, addr, value, now),
            MbcKind::Mbc5 => mbc5::write(self.header.has_rumble, mbc, addr, value),
        }
    }

    /// CPU read of 0xA000..=0xBFFF, with $FF where nothing drives the data bus (what
    /// [`Rom::read_ram_driven`] answers `None` for). `now` is unused: the CPU reads the
    /// latched clock registers, which do not run.
    #[inline]
    #[doc(hidden)]
    pub fn read_ram(&self, mbc: &MbcState, ram: &[u8; CART_RAM_MAX], addr: u16, _now: u64) -> u8 {
        self.read_ram_driven(mbc, ram, addr).unwrap_or(0xFF)
    }

    /// CPU read of 0xA000..=0xBFFF: the byte the cartridge drives onto the data bus, or
    /// `None` where it drives nothing and the CPU reads the open bus (what the bus last
    /// carried, `Machine::open_bus`): RAM disabled, absent, or an MBC3 clock register
    /// number with no register ($0D-$0F). UNVERIFIED beyond SameBoy (`read_mbc_ram`): Pan
    /// Docs only says such reads usually give $FF.
    #[inline]
    pub(crate) fn read_ram_driven(
        &self,
        mbc: &MbcState,
        ram: &[u8; CART_RAM_MAX],
        addr: u16,
    ) -> Option<u8> {
        match self.header.mbc_kind {
            MbcKind::RomOnly => self.read_banked_ram(mbc, ram, addr, true),
            MbcKind::Mbc1 | MbcKind::Mbc5 => self.read_banked_ram(mbc, ram, addr, mbc.ramg != 0),
            MbcKind::Mbc2 => mbc2::read_ram(mbc, ram, addr),
            MbcKind::Mbc3 => mbc3::read_ram(self, mbc, ram, addr),
        }
    }

    /// CPU write to 0xA000..=0xBFFF. Returns true when battery-backed data changed.
    #[inline]
    #[doc(hidden)]
    pub fn write_ram(
        &self,
        mbc: &mut MbcState,
        ram: &mut [u8; CART_RAM_MAX],
        addr: u16,
        value: u8,
        now: u64,
    ) -> bool {
        let written = match self.header.mbc_kind {
            MbcKind::RomOnly => self.write_banked_ram(mbc, ram, addr, value, true),
            MbcKind::Mbc1 | MbcKind::Mbc5 => {
                self.write_banked_ram(mbc, ram, addr, value, mbc.ramg != 0)
            }
            MbcKind::Mbc2 => mbc2::write_ram(mbc, ram, addr, value),
            MbcKind::Mbc3 => mbc3::write_ram(self, mbc, ram, addr, value, now),
        };
        written && self.header.has_battery
    }

    #[doc(hidden)]
    /// MBC3 clocks: adds `seconds` of host time (time the emulator was not running, e.g. from
    /// a battery save's timestamp) to the clock at M-cycle `now`. This is the only way host
    /// time enters the RTC; call it at a recorded input point. A halted clock ignores it.
    pub fn rtc_advance_seconds(&self, mbc: &mut MbcState, seconds: u64, now: u64) {
        if self.header.has_rtc {
            mbc3::rtc_catch_up(mbc, now);
            if mbc.rtc_live[mbc3::DAYS_HIGH] & mbc3::HALT == 0 {
                mbc3::add_seconds(&mut mbc.rtc_live, seconds);
            }
        }
    }

    /// MBC3 clocks: the counting registers (seconds, minutes, hours, day low, day high) as
    /// they stand at M-cycle `now`, without changing `mbc`. `None` without a clock. For
    /// debuggers, and for battery saves (pass a copy brought up to date to `battery_bytes`
    /// with [`Rom::rtc_sync`] so the saved clock includes time since its last access).
    pub fn rtc_registers(&self, mbc: &MbcState, now: u64) -> Option<[u8; 5]> {
        if !self.header.has_rtc {
            return None;
        }
        let mut copy = *mbc;
        mbc3::rtc_catch_up(&mut copy, now);
        Some(copy.rtc_live)
    }

    #[doc(hidden)]
    /// MBC3 clocks: the `now` to pass the clock's methods at the machine's M-cycle
    /// `m_cycles`. The clock runs on the cartridge's own crystal, so it counts time, not CPU
    /// M-cycles: at CGB double speed (two CPU M-cycles per M-cycle of normal-speed time) it
    /// is first brought up to date here at half the CPU's pace, and the answer is where
    /// that left it. At normal speed it is `m_cycles`. The machine also calls it before
    /// the speed changes, so one pace holds from the clock's last update on.
    pub fn rtc_now(&self, mbc: &mut MbcState, m_cycles: u64, double_speed: bool) -> u64 {
        if double_speed && self.header.has_rtc {
            mbc3::rtc_catch_up_double_speed(mbc, m_cycles);
            mbc.rtc_updated_at
        } else {
            m_cycles
        }
    }

    /// [`Rom::rtc_now`] for the machine `hw`.
    pub(crate) fn rtc_now_in(&self, hw: &mut crate::state::HwState) -> u64 {
        self.rtc_now(&mut hw.mbc, hw.m_cycles, hw.cgb.double_speed())
    }

    #[doc(hidden)]
    /// MBC3 clocks: brings the lazily updated clock up to M-cycle `now`. Observable behaviour
    /// is unchanged (the clock reads the same either way); only the stored bytes change, so
    /// prefer calling it on a copy (e.g. before `battery_bytes`) rather than on live state.
    pub fn rtc_sync(&self, mbc: &mut MbcState, now: u64) {
        if self.header.has_rtc {
            mbc3::rtc_catch_up(mbc, now);
        }
    }

    /// Reads RAM banked by `mbc.ram_offset`, shared by the mappers whose RAM is plain:
    /// `None` (open bus) when disabled or absent.
    #[inline]
    fn read_banked_ram(
        &self,
        mbc: &MbcState,
        ram: &[u8; CART_RAM_MAX],
        addr: u16,
        enabled: bool,
    ) -> Option<u8> {
        (enabled && self.header.ram_bytes != 0).then(|| ram[self.ram_index(mbc, addr)])
    }

    #[inline]
    fn write_banked_ram(
        &self,
        mbc: &MbcState,
        ram: &mut [u8; CART_RAM_MAX],
        addr: u16,
        value: u8,
        enabled: bool,
    ) -> bool {
        if enabled && self.header.ram_bytes != 0 {
            ram[self.ram_index(mbc, addr)] = value;
            true
        } else {
            false
        }
    }

    /// Index into cartridge RAM for `addr` in A000-BFFF: wraps at the RAM size (so 2 KiB RAM
    /// repeats across the 8 KiB window and bank numbers wrap), and never leaves the array.
    #[inline]
    fn ram_index(&self, mbc: &MbcState, addr: u16) -> usize {
        (mbc.ram_offset as usize).wrapping_add(usize::from(addr & 0x1FFF))
            & self.ram_mask
            & (CART_RAM_MAX - 1)
    }
}
