//! The ROM windows: the cartridge ROM as the CPU reads it, for reads that skip the MBC, and
//! the length of work RAM the CPU reaches straight, rebuilt with them.

use super::*;

/// The cartridge ROM as the CPU reads it at 0x0000..=0x7FFF (`Rom::flat_window`), valid
/// below `end`: a pure function of the MBC registers, the OAM DMA's activity and the boot
/// ROM flag, rebuilt whenever one of them changes (`Machine::refresh_rom_windows`).
pub(super) struct RomWindows<'a> {
    /// Bank 0 then the high window's bank in one array, so that a read indexes it with the
    /// whole address: no window to pick from the address's top bits, on every ROM read.
    flat: &'a [u8; 0x8000],
    /// 0x8000 when `flat` is what the CPU reads (no OAM DMA runs, no boot ROM is mapped,
    /// the low window maps bank 0 and the high one a whole bank), 0 when ROM reads take
    /// the slow path: one compare tells both the address range and the windows' validity.
    pub(super) end: u16,
    /// How many bytes from 0xC000 on the CPU reads and writes straight in `hw.wram`:
    /// 0x2000 (banks 0 and 1), 0x1000 (bank 0 only: SVBK selects bank 2..=7), or 0 while
    /// OAM DMA runs (it may block the work RAM's bus). One compare then tells both the
    /// address range and the bank, rebuilt with the windows and after an SVBK write.
    /// Never more than `hw.wram`'s length (`wram_offset` counts on it), and as wide as an
    /// index, so that the offset it is compared with indexes `hw.wram` as it is.
    wram_fast_len: usize,
    /// false (`FastPaths::rom_windows` off): the windows stay closed and every ROM read
    /// takes the slow path through `Rom::read`, the reference they are checked against.
    enabled: bool,
}

impl<'a> RomWindows<'a> {
    /// Closed windows (`Machine::refresh_rom_windows` opens them).
    pub(super) fn new(enabled: bool) -> RomWindows<'a> {
        RomWindows {
            flat: &UNMAPPED_WINDOWS,
            end: 0,
            wram_fast_len: 0,
            enabled,
        }
    }

    /// Maps `flat` (what `Rom::flat_window` gives), or closes the windows.
    #[inline]
    fn map(&mut self, flat: Option<&'a [u8; 0x8000]>) {
        (self.flat, self.end) = match flat {
            Some(flat) if self.enabled => (flat, 0x8000),
            _ => (&UNMAPPED_WINDOWS, 0),
        };
    }

    /// The byte the windows hold at `addr` (below `end`).
    #[inline(always)]
    fn byte(&self, addr: u16) -> u8 {
        debug_assert!(addr < self.end);
        // SAFETY: `addr < end`, and `end` is 0 or `flat`'s length (`map`), so `addr` indexes
        // `flat`.
        unsafe { *self.flat.get_unchecked(usize::from(addr)) }
    }

    /// The two bytes the windows hold at `addr` and `addr + 1` (both below `end`), low
    /// first: one load.
    #[inline(always)]
    fn word(&self, addr: u16) -> u16 {
        debug_assert!(u32::from(addr) + 1 < u32::from(self.end));
        let at = usize::from(addr);
        // SAFETY: `addr + 1 < end`, and `end` is 0 or `flat`'s length (`map`), so both
        // bytes lie in `flat`.
        let bytes = unsafe {
            [
                *self.flat.get_unchecked(at),
                *self.flat.get_unchecked(at + 1),
            ]
        };
        u16::from_le_bytes(bytes)
    }

    /// The banks the windows map, by their place in memory, while they are open (None when
    /// closed): the same pair means the same bytes at 0x0000-0x7FFF for the rest of the
    /// run call, as the ROM never changes (what `poll_loop`'s cache of decoded loops keys on).
    #[inline(always)]
    pub(super) fn mapped(&self) -> Option<[*const u8; 2]> {
        (self.end != 0).then(|| [self.flat.as_ptr(), self.flat[0x4000..].as_ptr()])
    }

    /// `addr`'s offset in `hw.wram` when it lies in the work RAM's fast length: below
    /// `hw.wram`'s length, which the caller may index unchecked.
    #[inline(always)]
    pub(super) fn wram_offset(&self, addr: u16) -> Option<usize> {
        debug_assert!(self.wram_fast_len <= std::mem::size_of::<[u8; 0x2000]>());
        let offset = usize::from(addr).wrapping_sub(0xC000);
        (offset < self.wram_fast_len).then_some(offset)
    }

    /// Whether `addr` and `addr + 1` both lie in the work RAM's fast length.
    #[inline(always)]
    pub(super) fn has_wram_pair(&self, addr: u16) -> bool {
        usize::from(addr).wrapping_sub(0xC000).wrapping_add(1) < self.wram_fast_len
    }

    /// Where a plain step may fetch its opcode straight (`Machine::plain_fetch`): the
    /// windows and the work RAM's fast length.
    #[inline(always)]
    pub(super) fn plain_fetch(&self) -> PlainFetch {
        PlainFetch {
            rom_end: self.end,
            // At most 0x2000.
            wram_len: self.wram_fast_len as u16,
        }
    }
}

/// The memory a plain step reads its opcode from straight, as two ranges that one compare
/// each tells: ROM below `rom_end` (the windows' `end`), work RAM from 0xC000 for
/// `wram_len` bytes (`RomWindows::wram_fast_len`). Both are empty while the run loop's
/// checks are due, and the two lengths are cleared together in one store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(4))]
pub(super) struct PlainFetch {
    rom_end: u16,
    wram_len: u16,
}

impl PlainFetch {
    /// No plain fetch: checks are due.
    pub(super) const NONE: PlainFetch = PlainFetch {
        rom_end: 0,
        wram_len: 0,
    };

    /// Whether `pc` is in the ROM windows' range.
    #[inline(always)]
    pub(super) fn has_rom(&self, pc: u16) -> bool {
        pc < self.rom_end
    }

    /// Whether `pc` is in the work RAM's fast range.
    #[inline(always)]
    pub(super) fn has_wram(&self, pc: u16) -> bool {
        pc.wrapping_sub(0xC000) < self.wram_len
    }
}

impl<'a> Machine<'a> {
    /// Rebuilds the ROM windows (and `wram_fast_len`) after a change of the MBC registers,
    /// the OAM DMA's activity or the boot ROM mapping.
    #[inline]
    pub(super) fn refresh_rom_windows(&mut self) {
        self.refresh_wram_fast_len();
        let hw = &*self.hw;
        let rom: &'a Rom = self.rom;
        let banks = if hw.dma.active != 0 || hw.boot_rom_mapped != 0 {
            None
        } else {
            rom.flat_window(&hw.mbc)
        };
        self.windows.map(banks);
        self.plain_fetch = self.derived_plain_fetch();
    }

    /// Rebuilds `wram_fast_len` after a change of the OAM DMA's activity or of SVBK.
    #[inline]
    pub(super) fn refresh_wram_fast_len(&mut self) {
        let hw = &*self.hw;
        self.windows.wram_fast_len = if hw.dma.active != 0 {
            0
        } else if hw.cgb.svbk & 6 != 0 {
            0x1000
        } else {
            0x2000
        };
        self.plain_fetch = self.derived_plain_fetch();
    }

    /// The byte the ROM windows hold at `addr` (below `windows.end`): what `Rom::read`
    /// reads there through the MBC.
    #[inline(always)]
    pub(super) fn rom_window_byte(&self, addr: u16) -> u8 {
        let value = self.windows.byte(addr);
        debug_assert_eq!(
            value,
            self.rom.read(&self.hw.mbc, addr),
            "ROM window at {addr:04X}"
        );
        value
    }

    /// `addr`'s and `addr + 1`'s bytes, low first, when both lie in the ROM windows or both
    /// in the work RAM's fast length (`Bus::read_word`'s quiet case); else `None`.
    #[inline(always)]
    pub(super) fn quiet_word(&self, addr: u16) -> Option<u16> {
        let next = addr.wrapping_add(1);
        if next < self.windows.end && addr < next {
            return Some(self.rom_window_word(addr));
        }
        if self.windows.has_wram_pair(addr) {
            let offset = usize::from(addr.wrapping_sub(0xC000));
            return Some(u16::from_le_bytes([
                self.hw.wram[offset],
                self.hw.wram[offset + 1],
            ]));
        }
        None
    }

    /// `rom_window_byte` of `addr` and `addr + 1` (both below `windows.end`), low first.
    #[inline(always)]
    pub(super) fn rom_window_word(&self, addr: u16) -> u16 {
        let value = self.windows.word(addr);
        debug_assert_eq!(
            value.to_le_bytes(),
            [
                self.rom.read(&self.hw.mbc, addr),
                self.rom.read(&self.hw.mbc, addr.wrapping_add(1))
            ],
            "ROM window at {addr:04X}"
        );
        value
    }
}

/// What the windows hold while ROM reads take the slow path (never read then).
static UNMAPPED_WINDOWS: [u8; 0x8000] = [0xFF; 0x8000];
