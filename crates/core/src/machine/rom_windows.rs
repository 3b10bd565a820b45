//! The ROM windows: the cartridge ROM as the CPU reads it, for reads that skip the MBC, and
//! the length of work RAM the CPU reaches straight, rebuilt with them.

use super::*;

/// The cartridge ROM as the CPU reads it at 0x0000..=0x3FFF and 0x4000..=0x7FFF
/// (`Rom::windows`), valid below `end`: a pure function of the MBC registers, the OAM DMA's
/// activity and the boot ROM flag, rebuilt whenever one of them changes
/// (`Machine::refresh_rom_windows`).
pub(super) struct RomWindows<'a> {
    /// Indexed by `addr >> 14`: entries 2 and 3 (0x8000 and up) are never read, and are
    /// there so that the index needs no mask.
    windows: [&'a [u8; 0x4000]; 4],
    /// `windows[i]`'s start moved back by `i * 0x4000` (`window_base`), so that a read
    /// adds the whole address to it: one instruction less than masking the offset, on
    /// every ROM read (see `byte`; a safe form with no mask would need windows 64 KiB
    /// long, that is a padded copy of the ROM image).
    bases: [*const u8; 4],
    /// 0x8000 when `windows` is what the CPU reads (no OAM DMA runs, no boot ROM is
    /// mapped, the banks are whole windows), 0 when ROM reads take the slow path: one
    /// compare tells both the address range and the windows' validity.
    pub(super) end: u16,
    /// How many bytes from 0xC000 on the CPU reads and writes straight in `hw.wram`:
    /// 0x2000 (banks 0 and 1), 0x1000 (bank 0 only: SVBK selects bank 2..=7), or 0 while
    /// OAM DMA runs (it may block the work RAM's bus). One compare then tells both the
    /// address range and the bank, rebuilt with the windows and after an SVBK write.
    pub(super) wram_fast_len: u16,
    /// false (`FastPaths::rom_windows` off): the windows stay closed and every ROM read
    /// takes the slow path through `Rom::read`, the reference they are checked against.
    enabled: bool,
}

impl<'a> RomWindows<'a> {
    /// Closed windows (`Machine::refresh_rom_windows` opens them).
    pub(super) fn new(enabled: bool) -> RomWindows<'a> {
        RomWindows {
            windows: [&UNMAPPED_WINDOW; 4],
            bases: [UNMAPPED_WINDOW.as_ptr(); 4],
            end: 0,
            wram_fast_len: 0,
            enabled,
        }
    }

    /// Maps `banks` (the two 16 KiB windows `Rom::windows` gives), or closes the windows.
    #[inline]
    fn map(&mut self, banks: Option<[&'a [u8; 0x4000]; 2]>) {
        (self.windows, self.end) = match banks {
            Some([low, high]) if self.enabled => {
                ([low, high, &UNMAPPED_WINDOW, &UNMAPPED_WINDOW], 0x8000)
            }
            _ => ([&UNMAPPED_WINDOW; 4], 0),
        };
        let windows = self.windows;
        self.bases = std::array::from_fn(|i| window_base(windows[i], i));
    }

    /// The byte the windows hold at `addr` (below `end`).
    #[inline(always)]
    fn byte(&self, addr: u16) -> u8 {
        debug_assert!(addr < self.end);
        let window = usize::from(addr >> 14);
        // SAFETY: `bases[window]` is `windows[window]`'s start moved back by
        // `window * 0x4000` (`map`, which sets both), and `addr` lies in
        // `window * 0x4000..(window + 1) * 0x4000`, so the sum points at byte
        // `addr & 0x3FFF` of that window: inside a 16 KiB array borrowed for `'a` (the
        // ROM, or `UNMAPPED_WINDOW`), from whose start the base was derived.
        unsafe { *self.bases[window].wrapping_add(usize::from(addr)) }
    }

    /// The banks the windows map, by their place in memory, while they are open (None when
    /// closed): the same pair means the same bytes at 0x0000-0x7FFF for the rest of the
    /// run call, as the ROM never changes (what `poll_loop`'s cache of decoded loops keys on).
    #[inline(always)]
    pub(super) fn mapped(&self) -> Option<[*const u8; 2]> {
        (self.end != 0).then(|| [self.windows[0].as_ptr(), self.windows[1].as_ptr()])
    }

    /// Where a plain step may fetch its opcode straight (`Machine::plain_fetch`): the
    /// windows and the work RAM's fast length.
    #[inline(always)]
    pub(super) fn plain_fetch(&self) -> PlainFetch {
        PlainFetch {
            rom_end: self.end,
            wram_len: self.wram_fast_len,
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
            rom.windows(&hw.mbc)
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
}

/// What the windows hold while ROM reads take the slow path (never read then).
static UNMAPPED_WINDOW: [u8; 0x4000] = [0xFF; 0x4000];

/// `RomWindows::bases`' entry for `window` mapped at `index * 0x4000`: its start moved back
/// by that much, so that adding an address in the window gives its byte. The pointer may
/// lie outside the window (wrapping arithmetic, never dereferenced as such); it keeps the
/// window's provenance.
fn window_base(window: &[u8; 0x4000], index: usize) -> *const u8 {
    window.as_ptr().wrapping_sub(index * 0x4000)
}
