//! The DMG OAM corruption bug: CPU accesses to FE00..=FEFF while the scan reads OAM.

use super::*;

/// Dots added to the line dot to find the OAM row the scan reads (see `oam_bug_row`).
const OAM_BUG_DOT_OFFSET: i32 = -4;
const OAM_BUG_READ_EXTRA: i32 = 0;

impl PpuState {
    /// OAM corruption bug, for a CPU write to 0xFE00..=0xFEFF, or an IDU operation
    /// (INC/DEC rr, the SP decrement before a push) whose address is in that range, in the
    /// current M-cycle (Pan Docs, "OAM Corruption Bug"; Blargg `oam_bug`).
    pub fn oam_bug_write(&self, oam: &mut [u8; 160]) {
        if let Some(row) = self.oam_bug_row(0) {
            corrupt_row(oam, row, |a, b, c| ((a ^ c) & (b ^ c)) ^ c);
        }
    }

    /// OAM corruption bug for a CPU read of 0xFE00..=0xFEFF in the current M-cycle (any
    /// read: with or without an address increment, as POP and `LD A,(HL+)` do). The pattern
    /// depends on the row being scanned, as SameBoy documents for the DMG (Blargg
    /// `oam_bug/8-instr_effect`); `a` below is the row's first word, `b` and `c` the
    /// preceding row's first and third, rows counted in 8-byte units.
    pub fn oam_bug_read(&self, oam: &mut [u8; 160]) {
        if let Some(row) = self.oam_bug_row(OAM_BUG_READ_EXTRA) {
            corrupt_on_read(oam, row);
        }
    }

    /// The OAM row (8 bytes) the scan is reading in this M-cycle, if the CPU's access can
    /// collide with it: rows 1..=19 of mode 2 (row 0 is never corrupted).
    pub(super) fn oam_bug_row(&self, extra: i32) -> Option<usize> {
        if self.lcdc & LCDC_LCD_ENABLE == 0 || self.ly >= 144 {
            return None;
        }
        let step = Step::from_raw(self.step);
        if !matches!(
            step,
            Step::LineOamInterrupt | Step::LineMode2 | Step::LineScanEnd
        ) {
            return None;
        }
        // UNVERIFIED offset: Blargg oam_bug/4-scanline_timing decides.
        let dot = i32::from(self.line_dot) + OAM_BUG_DOT_OFFSET + extra;
        if dot < 4 {
            return None;
        }
        let row = (dot / 4) as usize;
        (1..20).contains(&row).then_some(row)
    }
}

/// Applies a corruption to OAM row `row` (1..=19): its first word becomes `f(a, b, c)`
/// (a: the row's first word, b: the preceding row's first word, c: the preceding row's
/// third word), and its other three words are copied from the preceding row. All the
/// operations are bitwise, so they apply byte by byte.
fn corrupt_row(oam: &mut [u8; 160], row: usize, f: impl Fn(u8, u8, u8) -> u8) {
    let base = (row % 20) * 8;
    if base < 8 {
        return;
    }
    for byte in 0..2 {
        let a = oam[base + byte];
        let b = oam[base - 8 + byte];
        let c = oam[base - 8 + 4 + byte];
        oam[base + byte] = f(a, b, c);
    }
    for byte in 2..8 {
        oam[base + byte] = oam[base - 8 + byte];
    }
}

/// 16-bit OAM word `index` (2 bytes, little-endian) relative to byte `base`.
fn oam_word(oam: &[u8; 160], base: usize, index: isize) -> u16 {
    let at = (base as isize + 2 * index) as usize % 160;
    u16::from_le_bytes([oam[at], oam[(at + 1) % 160]])
}

fn set_oam_word(oam: &mut [u8; 160], base: usize, index: isize, value: u16) {
    let at = (base as isize + 2 * index) as usize % 160;
    let [low, high] = value.to_le_bytes();
    oam[at] = low;
    oam[(at + 1) % 160] = high;
}

/// The read corruption of row `row` (1..=19). Which bitwise pattern applies depends on the
/// row (SameBoy's DMG findings, "revision and instance specific" for rows 4k; we follow the
/// DMGs that give constant results). Afterwards the preceding row is copied over the row,
/// and row 16 is also copied over row 0.
fn corrupt_on_read(oam: &mut [u8; 160], row: usize) {
    let row = row % 20;
    if row == 0 {
        return;
    }
    let base = row * 8;
    // w(k): word k relative to the row's first word (negative: earlier rows).
    let w = |oam: &[u8; 160], k: isize| oam_word(oam, base, k);
    if row < 19 && row % 4 == 2 {
        let value = {
            let (a, b, c, d) = (w(oam, -8), w(oam, -4), w(oam, 0), w(oam, -2));
            (b & (a | c | d)) | (a & c & d)
        };
        set_oam_word(oam, base, -4, value);
        for byte in 0..8 {
            oam[base - 16 + byte] = oam[base - 8 + byte];
        }
    } else if row < 19 && row.is_multiple_of(4) {
        let value = if row == 8 {
            let (b, c, d, e, f, g, h) = (
                w(oam, 0),
                w(oam, -2),
                w(oam, -3),
                w(oam, -4),
                w(oam, -7),
                w(oam, -8),
                w(oam, -16),
            );
            (e & (h | g | (!d & f) | c | b)) | (c & g & h)
        } else {
            let (a, b, c, d, e) = (w(oam, 0), w(oam, -2), w(oam, -4), w(oam, -8), w(oam, -16));
            match row {
                4 => (c & (a | b | d | e)) | (a & b & d & e),
                12 => (c & (a | b | d | e)) | (b & d & e),
                _ => c | (a & b & d & e),
            }
        };
        set_oam_word(oam, base, -4, value);
        for byte in 0..8 {
            let preceding = oam[base - 8 + byte];
            oam[base - 16 + byte] = preceding;
            oam[base - 32 + byte] = preceding;
        }
    } else {
        let (a, b, c) = (w(oam, 0), w(oam, -4), w(oam, -2));
        let value = b | (a & c);
        set_oam_word(oam, base, -4, value);
        set_oam_word(oam, base, 0, value);
    }
    for byte in 0..8 {
        oam[base + byte] = oam[base - 8 + byte];
    }
    if row == 16 {
        for byte in 0..8 {
            oam[byte] = oam[base + byte];
        }
    }
}
