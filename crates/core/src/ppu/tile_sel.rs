//! A CGB's TILE_SEL (LCDC bit 4) set on a background data read.
//!
//! The fetcher forms a tile data address one dot and reads it the next. Tiles 0..=127 lie
//! at 0x9000.. with the bit clear and at 0x8000.. with it set, so a write that sets the bit
//! on the read's dot moves the read from the 0x9000-0x9FFF half of VRAM to the 0x8000-0x8FFF
//! half mid-access. The read then returns a byte the PPU read from the 0x8000 half earlier
//! (Matt Currie's "comprehensive Game Boy PPU documentation", LCDC TILE_SEL, all CGB
//! revisions): the high byte of the object fetched last, else the last tile byte read with
//! the bit set, else the read under way when the previous line's mode 3 ended. All three
//! are one thing, the last byte the PPU read from that half, which `low_half_latch` keeps
//! (Mealybug `m3_lcdc_tile_sel_change` and `m3_lcdc_tile_sel_win_change`, CGB: on the first
//! line of each object band the set lands on a low-byte read and shows the byte the
//! previous line read with the bit set; on the band's other lines, the object's high byte).
//! The 1-to-0 direction is `read_cgb_tile_data`'s own case (the tile number comes back).

use super::*;

impl PpuState {
    /// Whether the tile data read now was addressed with LCDC bit 4 clear and a write set
    /// the bit on this dot (`tile_sel_glitch`), for a tile whose address the bit moves.
    pub(super) fn tile_sel_set_on_read(&self, tile: u8) -> bool {
        self.tile_sel_glitch != 0
            && self.fetch_tile_sel == 0
            && self.lcdc & LCDC_TILE_DATA != 0
            && tile < 0x80
    }

    /// The last byte the PPU read from VRAM 0x8000-0x8FFF. Objects always come from there,
    /// and an object's high byte is its last read, so it shares `sprite_tile_high` (read
    /// by `push_sprite` right after its fetch, dead between fetches): a CGB's background
    /// reads there overwrite it too. UNVERIFIED: one latch for both VRAM banks, and CPU or
    /// HDMA accesses outside mode 3 do not change it.
    pub(super) fn low_half_latch(&self) -> u8 {
        self.sprite_tile_high
    }

    pub(super) fn set_low_half_latch(&mut self, byte: u8) {
        self.sprite_tile_high = byte;
    }
}
