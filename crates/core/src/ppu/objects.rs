//! Objects: the OAM scan and the object fetches that pause the background fetcher.

use super::*;

/// Each byte lane's top bit.
const LANE_HIGH: u64 = 0x8080_8080_8080_8080;
/// Each byte lane's low seven bits.
const LANE_LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// One in every byte lane: times a byte, that byte in every lane.
const LANE_ONES: u64 = 0x0101_0101_0101_0101;
/// Bytes 0 and 4 of eight OAM bytes read little-endian: the Y bytes of two entries.
const TWO_ENTRY_Y: u64 = 0x0000_00FF_0000_00FF;
/// Moves lane k's top bit (bit 8k + 7) of a word of eight Y lanes to bit 56 + the lane's
/// entry number within its eight entries (lanes 0..=3 hold entries 0, 2, 4, 6 and lanes
/// 4..=7 entries 1, 3, 5, 7; see `entries_on_line_swar`): lane k's term is shifted by
/// 49 + entry - 8k. No two products of a lane bit and a term share a bit, so nothing
/// carries, and only a lane's own term lands in bits 56..=63.
const LANE_GATHER: u64 =
    (1 << 49) | (1 << 43) | (1 << 37) | (1 << 31) | (1 << 18) | (1 << 12) | (1 << 6) | 1;

/// Bit i set: OAM entry i is on scan line `line` (LY + 16) for objects `height` (8 or 16)
/// rows tall, that is `line - y` (wrapping) is below `height`; see `entries_on_line_swar`
/// for why the wrapping difference is exact.
#[inline(always)]
fn entries_on_line(oam: &[u8; 160], line: u8, height: u8) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: the cfg above makes SSE2, the only feature `entries_on_line_sse2` enables,
        // part of this build's target (it is in every x86_64 CPU).
        unsafe { entries_on_line_sse2(oam, line, height) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        entries_on_line_swar(oam, line, height)
    }
}

/// `entries_on_line` sixteen entries per SSE2 register: each 16-byte quarter-row of OAM
/// (four entries) is masked to its Y bytes (the low byte of each 32-bit lane) and two packs
/// narrow four quarter-rows to one Y byte per lane. An entry is on the line when
/// `d = line - y` (wrapping) is below `height`; `s = y + 127 - line = 127 - d` (wrapping)
/// is then in `128 - height..=127` and otherwise (`d` in `height..=255`) in `128..=255` or
/// `0..=127 - height`: so `s` as a signed byte is above `127 - height` exactly for the
/// entries on the line. One add, one signed compare and `movemask` test sixteen entries,
/// with no Y gather (the SWAR form's main cost).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn entries_on_line_sse2(oam: &[u8; 160], line: u8, height: u8) -> u64 {
    use core::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpgt_epi8, _mm_movemask_epi8, _mm_packs_epi32,
        _mm_packus_epi16, _mm_set1_epi8, _mm_set1_epi32,
    };
    let y_byte = _mm_set1_epi32(0xFF);
    // Entries 4k..=4k + 3's Y bytes, each alone in its 32-bit lane (so no pack saturates).
    let quarter = |k: usize| {
        let bytes = &oam[16 * k..16 * k + 16];
        _mm_and_si128(bytemuck::pod_read_unaligned::<__m128i>(bytes), y_byte)
    };
    // Entries 8k..=8k + 7's Y bytes in 16-bit lanes.
    let half = |k: usize| _mm_packs_epi32(quarter(2 * k), quarter(2 * k + 1));
    let offset = _mm_set1_epi8(127u8.wrapping_sub(line) as i8);
    let threshold = _mm_set1_epi8(127u8.wrapping_sub(height) as i8);
    // Bit j set: the entry in byte lane j is on the line.
    let on_line = |ys: __m128i| {
        let near = _mm_cmpgt_epi8(_mm_add_epi8(ys, offset), threshold);
        u64::from(_mm_movemask_epi8(near) as u16)
    };
    let last_eight = half(4);
    on_line(_mm_packus_epi16(half(0), half(1)))
        | on_line(_mm_packus_epi16(half(2), half(3))) << 16
        | (on_line(_mm_packus_epi16(last_eight, last_eight)) & 0xFF) << 32
}

/// `entries_on_line` without SSE2 (and a second oracle in its test). Bit i set: OAM entry i
/// is on scan line `line` (LY + 16) for objects `height` (8 or 16, a power of two) rows
/// tall. In bytes, `line - y` wraps for entries below the line to at
/// least `line - 255 + 256 > 16` (the line is at least 16), so it stays exact.
///
/// Branch-free, eight entries at a time in the byte lanes of a u64 (SWAR): their Y bytes
/// gathered into one word, `line - y` per lane without borrows between lanes, lanes whose
/// difference has no bit at or above `height` found exactly (no false zero), and their
/// top bits moved to the entry order by one multiply, in place of a compare per entry.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
fn entries_on_line_swar(oam: &[u8; 160], line: u8, height: u8) -> u64 {
    let lines = LANE_ONES * u64::from(line);
    let outside = LANE_ONES * u64::from(!height.wrapping_sub(1));
    let mut mask = 0u64;
    for (chunk_index, chunk) in oam.chunks_exact(32).enumerate() {
        let two = |word: usize| {
            let bytes: [u8; 8] = chunk[word * 8..word * 8 + 8].try_into().unwrap_or([0; 8]);
            u64::from_le_bytes(bytes) & TWO_ENTRY_Y
        };
        // Lane w holds entry 2w's Y, lane 4 + w entry 2w + 1's (w = 0..=3).
        let ys = two(0) | two(1) << 8 | two(2) << 16 | two(3) << 24;
        // Per lane `line - y` (Hacker's Delight 2-18: the top bits are subtracted apart).
        let distance = ((lines | LANE_HIGH) - (ys & !LANE_HIGH)) ^ ((lines ^ !ys) & LANE_HIGH);
        let far = distance & outside;
        // Top bit set exactly in the lanes where `far` is 0: the entry is on the line.
        let near = !(((far & LANE_LOW7) + LANE_LOW7) | far) & LANE_HIGH;
        mask |= (near.wrapping_mul(LANE_GATHER) >> 56) << (chunk_index * 8);
    }
    mask
}

/// An object the OAM scan found as one sort key, X above its OAM index above its Y: keys
/// order as the fetches do (X, then OAM index; Y, below a distinct index, never decides).
/// Its little-endian bytes are Y, index, X, 0.
#[inline(always)]
fn fetch_key(y: u8, x: u8, index: u8) -> u32 {
    u32::from(x) << 16 | u32::from(index) << 8 | u32::from(y)
}

impl PpuState {
    /// Selects up to ten objects on this line, in OAM order, then orders them for fetching.
    /// Every entry's Y and X pass the scan's latch, so the last entry's stay there.
    /// UNVERIFIED: done at once at dot 4 rather than over the 80 dots of mode 2; OAM is
    /// closed to the CPU meanwhile, so only OAM DMA during mode 2 could tell.
    pub(super) fn scan_oam(&mut self, oam: &[u8; 160]) {
        let height: u8 = if self.lcdc & LCDC_OBJ_TALL != 0 {
            16
        } else {
            8
        };
        let line = u16::from(self.ly) + 16;
        match u8::try_from(line) {
            Ok(line) if self.oam_dma_active == 0 => {
                self.oam_latch_y = oam[156];
                self.oam_latch_x = oam[157];
                // All 40 entries at once; most lines find none.
                match entries_on_line(oam, line, height) {
                    0 => self.sprite_count = 0,
                    on_line => self.take_objects(oam, on_line),
                }
            }
            // During OAM DMA every entry reads the latch (and LY past 239, only in a
            // corrupt state, is beyond `entries_on_line`'s byte arithmetic).
            _ => self.scan_oam_per_entry(oam, line, height),
        }
    }

    /// Takes the first ten objects of `on_line` (bit i: OAM entry i), in OAM order. Out of
    /// line, so that the scan of a line without objects needs no stack for the keys.
    #[inline(never)]
    fn take_objects(&mut self, oam: &[u8; 160], mut on_line: u64) {
        let mut keys = [0u32; 10];
        let mut count = 0usize;
        while on_line != 0 && count < 10 {
            let index = on_line.trailing_zeros() as usize;
            on_line &= on_line - 1;
            keys[count] = fetch_key(oam[index * 4], oam[index * 4 + 1], index as u8);
            count += 1;
        }
        self.store_in_fetch_order(&mut keys[..count]);
    }

    /// The scan one entry at a time through the latch, for OAM DMA (which makes every entry
    /// read the latch) and a line past 255.
    #[cold]
    #[inline(never)]
    fn scan_oam_per_entry(&mut self, oam: &[u8; 160], line: u16, height: u8) {
        let mut keys = [0u32; 10];
        let mut count = 0usize;
        let blocked = self.oam_dma_active != 0;
        for (index, entry) in oam.chunks_exact(4).enumerate() {
            if !blocked {
                self.oam_latch_y = entry[0];
                self.oam_latch_x = entry[1];
            }
            let y = u16::from(self.oam_latch_y);
            if count < 10 && line >= y && line < y + u16::from(height) {
                keys[count] = fetch_key(self.oam_latch_y, self.oam_latch_x, index as u8);
                count += 1;
            }
        }
        self.store_in_fetch_order(&mut keys[..count]);
    }

    /// Stores the objects `keys` (`fetch_key`s, at most ten) as the line's object list.
    /// Fetch order is X ascending, then OAM index ascending; the list is popped from its
    /// end, so it is stored in descending key order. Whole 32-bit keys and slots: sorting
    /// byte triples stalled on reading back bytes just stored one by one.
    fn store_in_fetch_order(&mut self, keys: &mut [u32]) {
        let count = keys.len().min(10);
        let keys = &mut keys[..count];
        // Insertion sort, descending (keys are distinct: each holds its OAM index).
        for n in 1..count {
            let key = keys[n];
            let mut position = n;
            while position > 0 && keys[position - 1] < key {
                keys[position] = keys[position - 1];
                position -= 1;
            }
            keys[position] = key;
        }
        for (n, &key) in keys.iter().enumerate() {
            // Y and X, tile and attributes 0 until the fetch reads them.
            let [y, index, x, _] = key.to_le_bytes();
            let slot = u32::from(y) | u32::from(x) << 8;
            self.sprites[n * 4..n * 4 + 4].copy_from_slice(&slot.to_le_bytes());
            self.sprite_oam_index[n] = index;
        }
        self.sprite_count = count as u8;
    }

    /// Reads the next object's tile number and attributes from OAM (or, during OAM DMA,
    /// the byte the DMA drives) into its `sprites` slot.
    pub(super) fn read_sprite_attributes(&mut self, oam: &[u8; 160]) {
        let n = usize::from(self.sprite_count.clamp(1, 10) - 1);
        let (tile, flags) = if self.oam_dma_active != 0 {
            (self.oam_dma_byte, self.oam_dma_byte)
        } else {
            let base = usize::from(self.sprite_oam_index[n] % 40) * 4;
            (oam[base + 2], oam[base + 3])
        };
        self.sprites[n * 4 + 2] = tile;
        self.sprites[n * 4 + 3] = flags;
    }

    pub(super) fn next_sprite(&self) -> [u8; 4] {
        let n = usize::from(self.sprite_count.clamp(1, 10) - 1) * 4;
        [
            self.sprites[n],
            self.sprites[n + 1],
            self.sprites[n + 2],
            self.sprites[n + 3],
        ]
    }

    /// An object is due: the background fetcher first reaches its high data byte, then
    /// the object is fetched; a CGB is no different here. Cross-checked
    /// against SameBoy's display code, where an object at X=0 is matched from the first
    /// dot of mode 3 and holds the pixel output (fine-scroll discards included): both
    /// give 11 dots for an object at X=0 with SCX mod 8 = 0, 4 or 7, and 6 for X=1 with
    /// SCX mod 8 = 4 (also Gambatte's cost, 11 minus the offset into the tile, at least 6).
    pub(super) fn sprite_wait_fetcher(&mut self, bus: &mut Ctx) {
        if self.bg_fifo_len == 0 || self.fetcher_step < 5 {
            self.tick_fetcher_in(bus, true);
            self.goto(Step::SpriteWaitFetcher, 1);
            return;
        }
        if self.sprite_x0_penalty != 0 && self.next_sprite()[1] == 0 {
            let penalty = self.sprite_x0_penalty;
            self.sprite_x0_penalty = 0;
            self.goto(Step::SpriteAfterPenalty, u16::from(penalty));
            return;
        }
        self.sprite_fetch_1(bus);
    }

    /// Whether an object fetch holds the background fetcher now, up to its high data byte.
    pub(super) fn is_fetching_object(&self) -> bool {
        matches!(
            Step::from_raw(self.step),
            Step::SpriteWaitFetcher
                | Step::SpriteAfterPenalty
                | Step::SpriteFetch1
                | Step::SpriteFetch2
                | Step::SpriteFetchLow
                | Step::SpriteFetchHigh
        )
    }

    /// DMG: LCDC bit 1 cleared (it was set in `old_lcdc`) while an object is being fetched
    /// stops the fetch at once; the rest of the dot runs as a plain dot and the object,
    /// never pushed, is passed over (SameBoy's DMG LCDC notes, which also take the clear
    /// a dot early during a fetch; Mealybug m3_lcdc_obj_en_change_variant DMG). A CGB
    /// fetches objects whatever the bit says.
    pub(super) fn abort_object_fetch(&mut self, old_lcdc: u8) {
        if old_lcdc & !self.lcdc & LCDC_OBJ_ENABLE != 0
            && !self.is_cgb_hardware()
            && self.is_fetching_object()
        {
            self.goto(Step::SpriteFetchAborted, 0);
        }
    }

    pub(super) fn sprite_fetch_1(&mut self, bus: &mut Ctx) {
        self.tick_fetcher_in(bus, true);
        self.goto(Step::SpriteFetch2, 1);
    }

    /// Dots by which a CGB reads each object data byte ahead of a DMG (0 or 1).
    ///
    /// A CGB forms each object data byte's address (the row, from LCDC bit 2 and the
    /// object's Y) one dot before it reads the byte, as its background fetcher does
    /// (SameBoy's display notes give the fetcher's address/read pairs; for objects SameBoy
    /// leaves the sampling dot open). VRAM is closed to the CPU in mode 3, so the byte is the
    /// same on either dot: we form the address and read at the earlier dot, keeping the
    /// fetch's length. Evidence: Mealybug m3_lcdc_obj_size_change_scx on CGB C and D, where
    /// with SCX mod 8 = 4 a write clearing LCDC bit 2 lands exactly on the low byte's read
    /// dot of the second object and that byte still comes from the 8x16 row (its high byte,
    /// two dots later, from the 8x8 row); m3_lcdc_obj_size_change keeps passing.
    /// The DMG's object-size bit, landing two dots before the access, is the same
    /// address-ahead-of-read with the DMG's LCDC landing a dot earlier than a CGB's.
    /// UNVERIFIED at double speed.
    #[inline(always)]
    pub(super) fn object_read_lead(&self) -> u16 {
        u16::from(self.is_cgb_hardware())
    }

    /// VRAM offset of the next object's row on this line (low byte; +1 for the high).
    pub(super) fn sprite_row_address(&self) -> u16 {
        let tall = self.lcdc & LCDC_OBJ_TALL != 0;
        let sprite = self.next_sprite();
        let height_mask = if tall { 15 } else { 7 };
        let mut row = self.ly.wrapping_sub(sprite[0]) & height_mask;
        if sprite[3] & 0x40 != 0 {
            row = !row & height_mask;
        }
        let tile = if tall { sprite[2] & !1 } else { sprite[2] };
        u16::from(tile) * 16 + u16::from(row) * 2
    }

    pub(super) fn push_sprite(&mut self, bus: &Ctx) {
        let sprite = self.next_sprite();
        let (mut low, mut high) = (self.sprite_tile_low, self.sprite_tile_high);
        if sprite[3] & 0x20 != 0 {
            low = low.reverse_bits();
            high = high.reverse_bits();
        }
        // Earlier (higher-priority) objects keep their opaque pixels; in CGB mode a lower
        // OAM index wins instead (`take_by_oam_index`).
        let mut take = !(self.obj_fifo_low | self.obj_fifo_high);
        let cgb = self.colour_mode == MODE_CGB;
        if cgb {
            take |= self.take_by_oam_index(bus, low | high);
        }
        self.obj_fifo_low = (self.obj_fifo_low & !take) | (low & take);
        self.obj_fifo_high = (self.obj_fifo_high & !take) | (high & take);
        let spread = |set: bool| if set { 0xFF } else { 0 };
        // DMG: attribute bit 4 picks OBP1; CGB mode: bits 0..=2 are the palette number.
        let palette_bit0 = if cgb {
            sprite[3] & 1 != 0
        } else {
            sprite[3] & 0x10 != 0
        };
        let priority = spread(sprite[3] & 0x80 != 0);
        self.obj_fifo_palette = (self.obj_fifo_palette & !take) | (spread(palette_bit0) & take);
        self.obj_fifo_priority = (self.obj_fifo_priority & !take) | (priority & take);
        if cgb {
            self.push_cgb_object_palette(sprite[3], take);
        }
        self.sprite_count = self.sprite_count.saturating_sub(1);
    }

    /// The VRAM bank the next object's tile comes from: CGB attribute bit 3 in CGB mode.
    pub(super) fn sprite_vram<'a>(&self, bus: &Ctx<'a>) -> &'a [u8; 0x2000] {
        if self.colour_mode == MODE_CGB && self.next_sprite()[3] & 0x08 != 0 {
            bus.vram_bank1
        } else {
            bus.vram
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{entries_on_line, entries_on_line_swar};

    /// The plain form: one compare per entry.
    fn entries_on_line_per_entry(oam: &[u8; 160], line: u8, height: u8) -> u64 {
        let mut mask = 0u64;
        for entry in oam.chunks_exact(4).rev() {
            mask = (mask << 1) | u64::from(line.wrapping_sub(entry[0]) < height);
        }
        mask
    }

    /// Every Y value at every entry position, against every line and both heights.
    #[test]
    fn entries_on_line_matches_one_compare_per_entry() {
        let mut oam = [0u8; 160];
        for offset in 0..=255u8 {
            for (index, entry) in oam.chunks_exact_mut(4).enumerate() {
                // Neighbours differ, so lanes see all kinds of neighbours' borrows.
                entry[0] = offset.wrapping_add((index as u8).wrapping_mul(37));
                entry[1] = !entry[0];
                entry[2] = entry[0].wrapping_mul(3);
                entry[3] = 0xFF;
            }
            for line in 0..=255u8 {
                for height in [8, 16] {
                    let expected = entries_on_line_per_entry(&oam, line, height);
                    let context = format!("offset {offset}, line {line}, height {height}");
                    assert_eq!(entries_on_line(&oam, line, height), expected, "{context}");
                    assert_eq!(
                        entries_on_line_swar(&oam, line, height),
                        expected,
                        "{context}"
                    );
                }
            }
        }
    }
}
