//! [`Step`]: the named steps of the PPU's schedule, and which of them make up mode 3.

/// One step of the PPU's schedule. Stored raw in `PpuState::step`; discriminants are saved in
/// states, so they are never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(in crate::ppu) enum Step {
    /// LCD off: nothing is scheduled.
    Off = 0,
    /// First line after the LCD is switched on: it has no OAM scan and reports mode 0.
    LcdOnLine = 1,
    LcdOnOamWriteBlock = 2,
    LcdOnMode3 = 3,
    /// CGB at single speed, 4 dots into the LCD-on line's mode 3: VRAM is blocked.
    LcdOnVramBlock = 45,
    /// Dot 0 of lines 0..=143.
    LineStart = 6,
    /// Dot 2 at CGB double speed: OAM writes and reads blocked; the OAM STAT source of
    /// lines 1..=143 rises a dot early.
    LineOamInterruptEarly = 43,
    /// Dot 3: LY=LYC comparison suspended; OAM STAT source raised (a dot later on line 0).
    LineOamInterrupt = 7,
    /// Dot 4: mode 2 is visible, the OAM scan selects this line's objects.
    LineMode2 = 8,
    /// Dot 80: OAM scan over, VRAM reads blocked.
    LineScanEnd = 39,
    /// Dot 84: mode 3 visible.
    LineMode3 = 9,
    /// The pixel FIFO starts.
    Mode3Start = 10,
    /// One dot of mode 3: window check, sprite check, one pixel out, one fetcher step.
    Mode3Dot = 27,
    /// The window was triggered with WX=0 and a fine scroll: it starts one dot late.
    Mode3WindowActivate = 28,
    /// A sprite is due: the background fetcher must reach its last step first.
    SpriteWaitFetcher = 31,
    /// The extra delay of a sprite at X=0 (once per line) is over.
    SpriteAfterPenalty = 37,
    SpriteFetch1 = 38,
    SpriteFetch2 = 36,
    SpriteFetchLow = 33,
    SpriteFetchHigh = 34,
    SpritePush = 35,
    /// DMG: LCDC bit 1 was cleared during an object fetch, which stops it at once.
    SpriteFetchAborted = 44,
    /// The 160th pixel is out: mode 0.
    HBlank = 11,
    /// Dot 454: the window's WY=LY check for the next line.
    LineWindowCheck = 26,
    /// Dot 456: LY increments.
    LineEnd = 14,
    /// Dot 0 of lines 144..=152.
    VBlankLineStart = 15,
    VBlankDot2 = 16,
    VBlankDot4 = 17,
    VBlankLineEnd = 25,
    /// Line 153: LY reads 153 only briefly, then 0.
    Line153Start = 18,
    Line153Dot6 = 19,
    Line153Dot8 = 20,
    Line153Dot12 = 21,
    Line153Dot24 = 22,
    /// CGB line 153, dot 4: the comparator sees 153 (a DMG's waits for dot 6).
    Line153CgbCompare = 40,
    /// CGB line 153, dot 8: LY reads 0 (a DMG's at dot 6).
    Line153CgbLyZero = 41,
    /// One dot into mode 0: the HBlank STAT source rises; a CGB lets OAM reads through. In
    /// CGB mode the step runs a second time a few dots later (once `stat_mode_for_interrupt`
    /// is 0): palette RAM opens to the CPU, and at double speed the HBlank VRAM DMA may
    /// start. Discriminant 46, the unlock's own step in older states, decodes to it too.
    Mode0Interrupt = 42,
    /// End of line 153: the next frame starts.
    FrameEnd = 23,
}

/// Whether `raw` is a `Step` discriminant (save-state files reject any other `PpuState::step`).
pub(crate) fn is_saved_step(raw: u64) -> bool {
    raw == Step::Off as u64 || u8::try_from(raw).is_ok_and(|raw| Step::from_raw(raw) != Step::Off)
}

impl Step {
    /// Total decoding: an unknown value (a corrupt state) stops the PPU until the LCD is
    /// switched on again.
    pub(in crate::ppu) const fn from_raw(raw: u8) -> Step {
        match raw {
            1 => Step::LcdOnLine,
            2 => Step::LcdOnOamWriteBlock,
            3 => Step::LcdOnMode3,
            45 => Step::LcdOnVramBlock,
            6 => Step::LineStart,
            43 => Step::LineOamInterruptEarly,
            7 => Step::LineOamInterrupt,
            8 => Step::LineMode2,
            39 => Step::LineScanEnd,
            9 => Step::LineMode3,
            10 => Step::Mode3Start,
            27 => Step::Mode3Dot,
            28 => Step::Mode3WindowActivate,
            31 => Step::SpriteWaitFetcher,
            37 => Step::SpriteAfterPenalty,
            38 => Step::SpriteFetch1,
            36 => Step::SpriteFetch2,
            33 => Step::SpriteFetchLow,
            34 => Step::SpriteFetchHigh,
            35 => Step::SpritePush,
            44 => Step::SpriteFetchAborted,
            11 => Step::HBlank,
            26 => Step::LineWindowCheck,
            14 => Step::LineEnd,
            15 => Step::VBlankLineStart,
            16 => Step::VBlankDot2,
            17 => Step::VBlankDot4,
            25 => Step::VBlankLineEnd,
            18 => Step::Line153Start,
            19 => Step::Line153Dot6,
            20 => Step::Line153Dot8,
            21 => Step::Line153Dot12,
            22 => Step::Line153Dot24,
            40 => Step::Line153CgbCompare,
            41 => Step::Line153CgbLyZero,
            42 | 46 => Step::Mode0Interrupt,
            23 => Step::FrameEnd,
            _ => Step::Off,
        }
    }

    /// Steps that run every dot of mode 3 (a pixel may be produced).
    pub(in crate::ppu) const fn is_mode3(self) -> bool {
        matches!(
            self,
            Step::Mode3Start
                | Step::Mode3Dot
                | Step::Mode3WindowActivate
                | Step::SpriteWaitFetcher
                | Step::SpriteAfterPenalty
                | Step::SpriteFetch1
                | Step::SpriteFetch2
                | Step::SpriteFetchLow
                | Step::SpriteFetchHigh
                | Step::SpritePush
                | Step::SpriteFetchAborted
        )
    }
}

/// Bit n set: `Step` discriminant n belongs to mode 3 (`Step::is_mode3`), for a test of a
/// raw `PpuState::step` without decoding it.
pub(in crate::ppu) const MODE3_STEPS: u64 = {
    let mut mask = 0;
    let mut raw: u8 = 0;
    loop {
        // Every discriminant of a mode-3 step fits the mask.
        assert!(raw < 64 || !Step::from_raw(raw).is_mode3());
        if raw < 64 && Step::from_raw(raw).is_mode3() {
            mask |= 1 << raw;
        }
        if raw == u8::MAX {
            break mask;
        }
        raw += 1;
    }
};
