//! [`FastPaths`]: the core's speed tricks, each on its own switch.
//!
//! Every trick is an equivalence the core promises: switched off, the machine takes the plain
//! reference path instead, and every byte of [`State`](crate::State) is the same either way,
//! in any combination. Two of them switch output the host may not need rather than a way
//! of computing it ([`FastPath::changes_output`]): drawing (the frame buffers) and audio
//! synthesis (the samples and the synthesizer's own bytes, `hw.apu.synth`).

/// One of the core's speed tricks (a field of [`FastPaths`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FastPath {
    /// Mode 3 runs lazily: the PPU owes dots while the line's end is ahead, runs them
    /// without the step dispatch and draws a FIFO's pixels at once.
    LazyMode3,
    /// M-cycles in which nothing observable happens are only counted, and the timer, PPU
    /// and APU catch up on them in one go.
    DeferQuietTicks,
    /// At CGB double speed, a quiet window reaches across the PPU steps that request
    /// nothing and through mode 3, as at single speed, rather than ending at the next step.
    DoubleSpeedWindows,
    /// A halted (or stopped, or locked) CPU jumps straight to the next event instead of
    /// idling one M-cycle at a time.
    HaltSkipping,
    /// Loops that poll LY, STAT or RAM skip their iterations while nothing can change what
    /// they read.
    PollLoopSkipping,
    /// On a CGB, loops that poll LY or STAT are skipped too, from a forecast of its reads
    /// (whose LY lags the line's start by two dots).
    CgbPollForecast,
    /// Between the run loop's checks, the CPU runs plain steps that sample interrupts only
    /// when something may have changed them.
    PlainSteps,
    /// Cartridge ROM reads come straight from the mapped banks rather than through the MBC.
    RomWindows,
    /// The APU makes samples. Off, no sound is made and the channels run in closed form.
    AudioSynthesis,
    /// The PPU colours and stores pixels. Off, the frame buffers keep what they held.
    Drawing,
    /// On a CGB, lazy mode 3 runs each object's fetch with all its dots at once, as on a
    /// DMG, rather than through the step dispatch dot by dot.
    ColourObjectRuns,
    /// On a DMG, quiet windows know what the LY=LYC comparator holds: they run on past a
    /// line's OAM step when the comparison it holds (the line before's) cannot raise the
    /// STAT line, and across the rest of a line whose match already holds it high.
    LycWindows,
    /// On a DMG, a visible line's mode 3 that one catch-up runs whole, with no object
    /// fetched and the window absent or starting on screen, runs in a few calls instead of
    /// through its dots: not drawing, straight to its end state; drawing, its spans at once.
    WholeMode3,
    /// On a DMG, a visible line's mode 3 that one catch-up runs whole, with objects
    /// fetched and the window absent, goes in one call to its last whole tile, each
    /// object's fetch done at once and its dots only counted: not drawing, the background
    /// jumps there; drawing, it drains from object to object.
    WholeMode3Objects,
    /// A CPU write to VRAM lands without first catching the timer, PPU and APU up on the
    /// deferred M-cycles when the PPU runs no step in them: none of them reads VRAM or
    /// changes whether the CPU may write it there.
    QuietVramWrites,
    /// On a DMG, a catch-up run that starts a visible line's mode 3 and draws nothing,
    /// with no object due early and the window absent, jumps to the last whole background
    /// tile it reaches instead of draining the tiles before it one by one.
    PartialMode3,
    /// On a DMG whose only STAT source is LY=LYC, a CPU write that moves LYC on to a later
    /// visible line keeps the quiet window it was made in, cut at that line's start, rather
    /// than working the window out again.
    LycWriteWindows,
    /// A loop polling LY or STAT whose code, in ROM, was decoded earlier in the run call is
    /// taken from a cache keyed on its place, the register and the banks mapped, and
    /// skipped from its first read rather than its second.
    PollLoopCache,
    /// A jump to itself (`jp` or `jr` to its own opcode), spinning until an interrupt,
    /// passes its iterations in the quiet window at once rather than one by one.
    SelfJumpSkipping,
    /// On a DMG whose HBlank and OAM STAT sources are off, a run that reaches from a
    /// line's mode-0 interrupt to the next visible line's mode 3 takes the steps between
    /// in one go: their LY=LYC comparisons as one, without the step loop's waits.
    LineTurns,
    /// On a DMG, the end of a flush period (when the channels catch up and finished samples
    /// go to the host) waits, while nothing can read the time it owes, for the APU's next
    /// catch-up or the run's end, which then work the owed periods one after the other.
    DeferredFlushes,
}

impl FastPath {
    /// Every trick, in the order of [`FastPaths`]' fields.
    pub const ALL: [FastPath; 21] = [
        FastPath::LazyMode3,
        FastPath::DeferQuietTicks,
        FastPath::DoubleSpeedWindows,
        FastPath::HaltSkipping,
        FastPath::PollLoopSkipping,
        FastPath::CgbPollForecast,
        FastPath::PlainSteps,
        FastPath::RomWindows,
        FastPath::AudioSynthesis,
        FastPath::Drawing,
        FastPath::ColourObjectRuns,
        FastPath::LycWindows,
        FastPath::WholeMode3,
        FastPath::WholeMode3Objects,
        FastPath::QuietVramWrites,
        FastPath::PartialMode3,
        FastPath::LycWriteWindows,
        FastPath::PollLoopCache,
        FastPath::SelfJumpSkipping,
        FastPath::LineTurns,
        FastPath::DeferredFlushes,
    ];

    /// The trick's name, as its field in [`FastPaths`] spells it.
    pub const fn name(self) -> &'static str {
        match self {
            FastPath::LazyMode3 => "lazy_mode3",
            FastPath::DeferQuietTicks => "defer_quiet_ticks",
            FastPath::DoubleSpeedWindows => "double_speed_windows",
            FastPath::HaltSkipping => "halt_skipping",
            FastPath::PollLoopSkipping => "poll_loop_skipping",
            FastPath::CgbPollForecast => "cgb_poll_forecast",
            FastPath::PlainSteps => "plain_steps",
            FastPath::RomWindows => "rom_windows",
            FastPath::AudioSynthesis => "audio_synthesis",
            FastPath::Drawing => "drawing",
            FastPath::ColourObjectRuns => "colour_object_runs",
            FastPath::LycWindows => "lyc_windows",
            FastPath::WholeMode3 => "whole_mode3",
            FastPath::WholeMode3Objects => "whole_mode3_objects",
            FastPath::QuietVramWrites => "quiet_vram_writes",
            FastPath::PartialMode3 => "partial_mode3",
            FastPath::LycWriteWindows => "lyc_write_windows",
            FastPath::PollLoopCache => "poll_loop_cache",
            FastPath::SelfJumpSkipping => "self_jump_skipping",
            FastPath::LineTurns => "line_turns",
            FastPath::DeferredFlushes => "deferred_flushes",
        }
    }

    /// Whether switching the trick off changes what the host gets rather than only the
    /// time it takes: drawing (the frame buffers) and audio synthesis (the samples, and the
    /// synthesizer's bytes of `State`, which stay as they were while it is off).
    pub const fn changes_output(self) -> bool {
        matches!(self, FastPath::AudioSynthesis | FastPath::Drawing)
    }
}

/// Which speed tricks the core uses (all by default): host options, never part of `State`.
/// [`Core::set_fast_paths`](crate::Core::set_fast_paths) applies them from the next call on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastPaths {
    /// [`FastPath::LazyMode3`].
    pub lazy_mode3: bool,
    /// [`FastPath::DeferQuietTicks`].
    pub defer_quiet_ticks: bool,
    /// [`FastPath::DoubleSpeedWindows`].
    pub double_speed_windows: bool,
    /// [`FastPath::HaltSkipping`].
    pub halt_skipping: bool,
    /// [`FastPath::PollLoopSkipping`].
    pub poll_loop_skipping: bool,
    /// [`FastPath::CgbPollForecast`].
    pub cgb_poll_forecast: bool,
    /// [`FastPath::PlainSteps`].
    pub plain_steps: bool,
    /// [`FastPath::RomWindows`].
    pub rom_windows: bool,
    /// [`FastPath::AudioSynthesis`].
    pub audio_synthesis: bool,
    /// [`FastPath::Drawing`].
    pub drawing: bool,
    /// [`FastPath::ColourObjectRuns`].
    pub colour_object_runs: bool,
    /// [`FastPath::LycWindows`].
    pub lyc_windows: bool,
    /// [`FastPath::WholeMode3`].
    pub whole_mode3: bool,
    /// [`FastPath::WholeMode3Objects`].
    pub whole_mode3_objects: bool,
    /// [`FastPath::QuietVramWrites`].
    pub quiet_vram_writes: bool,
    /// [`FastPath::PartialMode3`].
    pub partial_mode3: bool,
    /// [`FastPath::LycWriteWindows`].
    pub lyc_write_windows: bool,
    /// [`FastPath::PollLoopCache`].
    pub poll_loop_cache: bool,
    /// [`FastPath::SelfJumpSkipping`].
    pub self_jump_skipping: bool,
    /// [`FastPath::LineTurns`].
    pub line_turns: bool,
    /// [`FastPath::DeferredFlushes`].
    pub deferred_flushes: bool,
}

impl FastPaths {
    /// Every trick on: what a `Core` does unless told otherwise.
    pub const ALL: FastPaths = FastPaths {
        lazy_mode3: true,
        defer_quiet_ticks: true,
        double_speed_windows: true,
        halt_skipping: true,
        poll_loop_skipping: true,
        cgb_poll_forecast: true,
        plain_steps: true,
        rom_windows: true,
        audio_synthesis: true,
        drawing: true,
        colour_object_runs: true,
        lyc_windows: true,
        whole_mode3: true,
        whole_mode3_objects: true,
        quiet_vram_writes: true,
        partial_mode3: true,
        lyc_write_windows: true,
        poll_loop_cache: true,
        self_jump_skipping: true,
        line_turns: true,
        deferred_flushes: true,
    };

    /// Every trick off: the plain reference (drawing and synthesizing nothing).
    pub const NONE: FastPaths = FastPaths {
        lazy_mode3: false,
        defer_quiet_ticks: false,
        double_speed_windows: false,
        halt_skipping: false,
        poll_loop_skipping: false,
        cgb_poll_forecast: false,
        plain_steps: false,
        rom_windows: false,
        audio_synthesis: false,
        drawing: false,
        colour_object_runs: false,
        lyc_windows: false,
        whole_mode3: false,
        whole_mode3_objects: false,
        quiet_vram_writes: false,
        partial_mode3: false,
        lyc_write_windows: false,
        poll_loop_cache: false,
        self_jump_skipping: false,
        line_turns: false,
        deferred_flushes: false,
    };

    /// The switch of `trick`.
    fn field(&mut self, trick: FastPath) -> &mut bool {
        match trick {
            FastPath::LazyMode3 => &mut self.lazy_mode3,
            FastPath::DeferQuietTicks => &mut self.defer_quiet_ticks,
            FastPath::DoubleSpeedWindows => &mut self.double_speed_windows,
            FastPath::HaltSkipping => &mut self.halt_skipping,
            FastPath::PollLoopSkipping => &mut self.poll_loop_skipping,
            FastPath::CgbPollForecast => &mut self.cgb_poll_forecast,
            FastPath::PlainSteps => &mut self.plain_steps,
            FastPath::RomWindows => &mut self.rom_windows,
            FastPath::AudioSynthesis => &mut self.audio_synthesis,
            FastPath::Drawing => &mut self.drawing,
            FastPath::ColourObjectRuns => &mut self.colour_object_runs,
            FastPath::LycWindows => &mut self.lyc_windows,
            FastPath::WholeMode3 => &mut self.whole_mode3,
            FastPath::WholeMode3Objects => &mut self.whole_mode3_objects,
            FastPath::QuietVramWrites => &mut self.quiet_vram_writes,
            FastPath::PartialMode3 => &mut self.partial_mode3,
            FastPath::LycWriteWindows => &mut self.lyc_write_windows,
            FastPath::PollLoopCache => &mut self.poll_loop_cache,
            FastPath::SelfJumpSkipping => &mut self.self_jump_skipping,
            FastPath::LineTurns => &mut self.line_turns,
            FastPath::DeferredFlushes => &mut self.deferred_flushes,
        }
    }

    /// Whether `trick` is on.
    pub fn get(mut self, trick: FastPath) -> bool {
        *self.field(trick)
    }

    /// These options with `trick` switched `on` or off.
    #[must_use]
    pub fn with(mut self, trick: FastPath, on: bool) -> FastPaths {
        *self.field(trick) = on;
        self
    }
}

impl Default for FastPaths {
    fn default() -> FastPaths {
        FastPaths::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_trick_switches_its_own_field() {
        for trick in FastPath::ALL {
            let off = FastPaths::ALL.with(trick, false);
            for other in FastPath::ALL {
                assert_eq!(off.get(other), other != trick, "{}", other.name());
            }
            assert!(FastPaths::NONE.with(trick, true).get(trick));
        }
    }

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<_> = FastPath::ALL.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FastPath::ALL.len());
    }
}
