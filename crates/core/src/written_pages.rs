//! Which pages of the large, rarely written memories in [`State`] may have been written
//! since a host last asked ([`Core::take_written_pages`](crate::Core::take_written_pages)):
//! the rewind capture then compares only those pages of VRAM, the CGB's banked work RAM
//! and cartridge RAM (about nine tenths of the state) instead of every byte each frame.
//!
//! Only the slow write paths note them (the fast path writes work RAM banks 0 and 1 and
//! HRAM, which lie before the tracked part), with one OR of a constant. The untracked page
//! that VRAM bank 0 begins in is noted with VRAM's others, so its VRAM bytes (from
//! [`VRAM_FROM`] on) are tracked too, though its work RAM bytes are not. VRAM bank 1 is
//! noted only where a write reaches it (VBK or a VRAM DMA selecting it), which a DMG never
//! does.
//! Whatever replaces the state as a whole (power-on, reset, a load, `Core::state_mut`, a
//! battery load, a clone) marks every page.

use crate::State;
use crate::state::HwState;
use std::mem::offset_of;

/// Bytes of `State` per page.
pub const PAGE_BYTES: usize = 2048;

/// Offset in `State` of the first tracked byte: the first page that VRAM bank 0 begins
/// or follows. Pages before it are not tracked, so a host compares them always; the one
/// VRAM bank 0 begins in holds the end of work RAM too, which the fast path writes.
pub const TRACKED_FROM: usize = VRAM_FROM.div_ceil(PAGE_BYTES) * PAGE_BYTES;

const HW_OFFSET: usize = offset_of!(State, hw);
/// Offset in `State` of VRAM bank 0. While the bit of the page it begins in
/// ([`VRAM_FIRST_PAGE`]) is clear, the bytes from here to [`TRACKED_FROM`] were not written.
pub const VRAM_FROM: usize = HW_OFFSET + offset_of!(HwState, vram);
/// The page VRAM bank 0 begins in: every VRAM write notes it.
pub const VRAM_FIRST_PAGE: usize = VRAM_FROM / PAGE_BYTES;
const VRAM_BANK1_FROM: usize = HW_OFFSET + offset_of!(HwState, vram_bank1);
const WRAM_BANKS_FROM: usize = HW_OFFSET + offset_of!(HwState, wram_banks);
const CART_RAM_FROM: usize = HW_OFFSET + offset_of!(HwState, cart_ram);

const _: () = assert!(
    size_of::<State>() <= 128 * PAGE_BYTES,
    "a page bit per 2 KiB"
);
const _: () = assert!(
    offset_of!(HwState, vram) + 0x2000 == offset_of!(HwState, vram_bank1)
        && offset_of!(HwState, vram_bank1) + 0x2000 == offset_of!(HwState, wram_banks),
    "the tracked part is VRAM, banked work RAM and cartridge RAM, in one piece"
);
/// VRAM bank 0's pages, all in the set's low word.
const VRAM_PAGES: u64 = {
    let all = pages(VRAM_FROM, 0x2000);
    assert!(
        all >> 64 == 0,
        "VRAM bank 0's pages are in the set's low word"
    );
    assert!(
        all >> VRAM_FIRST_PAGE & 1 == 1,
        "a VRAM write notes the page VRAM begins in"
    );
    all as u64
};
const _: () = assert!(
    offset_of!(HwState, cart_ram) + crate::cart::CART_RAM_MAX == size_of::<HwState>(),
    "cartridge RAM ends the state"
);

/// A set of pages of `State` (bit `n`: bytes `n * PAGE_BYTES ..`). Only pages from
/// [`TRACKED_FROM`] on mean anything, and [`VRAM_FIRST_PAGE`] for its bytes from
/// [`VRAM_FROM`] on; the others may be set or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrittenPages(pub u128);

impl WrittenPages {
    /// Every page (nothing known).
    pub const ALL: WrittenPages = WrittenPages(u128::MAX);
    /// No page.
    pub const NONE: WrittenPages = WrittenPages(0);

    /// Whether page `page` may have been written.
    #[inline]
    pub fn contains(self, page: usize) -> bool {
        page >= 128 || self.0 >> page & 1 != 0
    }

    /// The pages of either set.
    #[inline]
    pub fn union(self, other: WrittenPages) -> WrittenPages {
        WrittenPages(self.0 | other.0)
    }

    /// Notes the CGB's work RAM banks 2 to 7 (a slow write to work RAM, which may land in
    /// bank 0 or 1 instead: those are not tracked).
    #[inline(always)]
    pub(crate) fn note_wram_banks(&mut self) {
        self.0 |= pages(WRAM_BANKS_FROM, 0x6000);
    }

    /// Notes VRAM bank 0 (any write to VRAM: some games write it every frame, many
    /// seldom). Its first page, shared with the end of work RAM, is noted too: that tells
    /// whether its VRAM bytes may have changed.
    /// Noting only the page written would be finer, but its shift costs a game that writes
    /// VRAM often more than twice this OR (see docs/rewind.md).
    ///
    /// All its pages are in the set's low word, ORed alone: as a 128-bit OR, the compiler
    /// loaded, ORed and stored the whole set through a vector register on every write.
    #[inline(always)]
    pub(crate) fn note_vram(&mut self) {
        const LOW: usize = if cfg!(target_endian = "big") { 1 } else { 0 };
        let words: &mut [u64; 2] = bytemuck::cast_mut(&mut self.0);
        words[LOW] |= VRAM_PAGES;
    }

    /// Notes VRAM bank 1 (a write that reaches it: only a CGB selects it).
    #[inline(always)]
    pub(crate) fn note_vram_bank1(&mut self) {
        self.0 |= pages(VRAM_BANK1_FROM, 0x2000);
    }

    /// Notes all of cartridge RAM (the mapper decides which byte a write reaches).
    #[inline(always)]
    pub(crate) fn note_cart_ram(&mut self) {
        self.0 |= pages(CART_RAM_FROM, crate::cart::CART_RAM_MAX);
    }
}

/// The pages holding `len` bytes of `State` from offset `from`.
const fn pages(from: usize, len: usize) -> u128 {
    let first = from / PAGE_BYTES;
    let end = (from + len).div_ceil(PAGE_BYTES);
    let upto_end = if end >= 128 {
        u128::MAX
    } else {
        (1 << end) - 1
    };
    upto_end & !((1 << first) - 1)
}
