//! Which pages of the large memories in [`State`] may have been written since a host last
//! asked ([`Core::take_written_pages`](crate::Core::take_written_pages)): the rewind
//! capture then compares only those pages of VRAM, the CGB's banked work RAM and
//! cartridge RAM (about nine tenths of the state) instead of every byte each frame.
//!
//! Only the slow write paths note pages (the fast path writes work RAM banks 0 and 1 and
//! HRAM, which lie before the tracked part), so the emulation's hot path is unchanged.
//! Whatever replaces the state as a whole (power-on, reset, a load, `Core::state_mut`, a
//! battery load, a clone) marks every page.

use crate::State;
use crate::state::HwState;
use std::mem::offset_of;

/// Bytes of `State` per page.
pub const PAGE_BYTES: usize = 2048;

/// Offset in `State` of the first tracked byte (VRAM): pages before it are not tracked, so
/// a host compares them always.
pub const TRACKED_FROM: usize = offset_of!(State, hw) + offset_of!(HwState, vram);

const HW_OFFSET: usize = offset_of!(State, hw);
const CART_RAM_FROM: usize = HW_OFFSET + offset_of!(HwState, cart_ram);

const _: () = assert!(
    size_of::<State>() <= 128 * PAGE_BYTES,
    "a page bit per 2 KiB"
);
const _: () = assert!(
    offset_of!(HwState, cart_ram) + crate::cart::CART_RAM_MAX == size_of::<HwState>(),
    "cartridge RAM ends the state"
);

/// A set of pages of `State` (bit `n`: bytes `n * PAGE_BYTES ..`). Only pages from
/// [`TRACKED_FROM`] on mean anything; the others may be set or not.
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

    /// Notes the byte at `slot`, which lies in `hw` (a slow write to a tracked memory).
    #[inline(always)]
    pub(crate) fn note(&mut self, hw: &HwState, slot: *const u8) {
        let offset = HW_OFFSET + (slot as usize - std::ptr::from_ref(hw) as usize);
        self.0 |= 1 << (offset / PAGE_BYTES);
    }

    /// Notes all of cartridge RAM (the mapper decides which byte a write reaches).
    #[inline(always)]
    pub(crate) fn note_cart_ram(&mut self) {
        self.0 |= !0u128 << (CART_RAM_FROM / PAGE_BYTES);
    }
}
