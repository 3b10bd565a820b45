//! Deferred flushes ([`FastPaths::deferred_flushes`](crate::FastPaths::deferred_flushes)):
//! the end of a flush period need not catch the channels up and hand samples on at once.
//!
//! A flush is a catch-up to the period's end, then the synthesizer's samples up to there; it
//! is the APU's most frequent entry, and its code (the channels' run, the synthesizer's
//! finishing) is evicted from the instruction cache by the CPU and PPU between two flushes.
//! Owed flushes run one after the other at the APU's next catch-up, so only the first of
//! them fetches that code.
//!
//! Owing one leaves the clock as the flush would (`flush_clock`'s count and skipped
//! catch-up cleared, nothing simulated in the new period) and the channels and synthesizer
//! where they are; the host side ([`AudioOut`]) counts the owed periods and keeps how far
//! the channels had been simulated into the oldest. What may happen meanwhile commutes with
//! a catch-up: ticks, and the DIV-APU events and register writes that skip theirs
//! (`event_is_quiet`, `write_is_quiet`; they change nothing a catch-up reads or writes,
//! and the synthesizer not at all). Every other entry settles the owed flushes first, as
//! does the machine before it hands the state back and before it reads an APU register
//! (wave RAM, while the channel plays, answers by the channel's time). Other reads take
//! `&self` and cannot settle, so a flush is owed only while none of them depends on the
//! channels' time: on a DMG (no PCM12/PCM34, no double speed), with the wave channel not
//! reading in the background nor waiting for the CPU's PC, no sweep check pending (NR52
//! holds) and the synthesizer's level the mixer's (as a skipped catch-up requires).

use super::*;

impl ApuState {
    /// Whether the flush due now may be owed (see the module's notes). While flushes are
    /// owed, only what commutes with a catch-up has happened, none of which touches what
    /// the check reads: it holds as it held for the first, and is not made again.
    #[inline]
    pub(super) fn flush_may_be_owed(&self, audio: &AudioOut) -> bool {
        audio.owed_flushes != 0
            || (audio.defer_flushes && self.cgb == 0 && self.channels_may_owe(audio.synthesizes()))
    }

    /// The channels' part of `flush_may_be_owed`, out of line: `flush` stays small where
    /// no flush is owed (on a CGB, or with the switch off).
    #[inline(never)]
    fn channels_may_owe(&self, synthesize: bool) -> bool {
        #[cfg(test)]
        if tests::plain_paths() {
            return false;
        }
        self.flush_clock & ELAPSED_HALF == 0
            && !self.watches_bus()
            && !self.wants_pc()
            && self.background_read_due() == 0
            && self.sweep_check_apu_cycles() == 0
            && self.level_is_current(synthesize)
    }

    /// Owes the flush due now (the clock has just carried out at a whole period): the
    /// clock as `flush_after` leaves it, the channels where they are.
    pub(super) fn owe_flush(&mut self, audio: &mut AudioOut) {
        if audio.owed_flushes == 0 {
            audio.owed_from = self.apu_cycles_simulated();
        }
        audio.owed_flushes += 1;
        self.flush_clock &= FLUSH_CLOCK_PHASE_BITS & !SIMULATED_HALF;
        self.m_cycles_simulated = 0;
    }

    /// Works the owed flushes, oldest first, as they would have run when due; the clock
    /// then stands where it stood (the present period, its skipped catch-up kept).
    #[inline]
    pub(crate) fn settle_owed_flushes(&mut self, audio: &mut AudioOut) {
        if audio.owed_flushes != 0 {
            self.work_owed_flushes(audio);
        }
    }

    #[cold]
    #[inline(never)]
    fn work_owed_flushes(&mut self, audio: &mut AudioOut) {
        let owed = std::mem::take(&mut audio.owed_flushes);
        let (clock, simulated) = (self.flush_clock, self.m_cycles_simulated);
        // Back at the end of the oldest owed period, the channels as far as they had run.
        self.flush_clock = clock & FLUSH_CLOCK_PHASE_BITS;
        self.set_apu_cycles_simulated(audio.owed_from);
        for _ in 0..owed {
            // As `flush` does at a single-speed carry (`ELAPSED_HALF` clear).
            self.flush_after(FLUSH_M_CYCLES * 2, audio);
        }
        self.flush_clock = clock;
        self.m_cycles_simulated = simulated;
    }

    /// The DIV-APU event at single speed (as [`Self::div_apu_event`]), settling owed
    /// flushes first unless the event skips its catch-up.
    pub(crate) fn div_apu_event_owing(&mut self, audio: &mut AudioOut) {
        self.frame_sequencer_event(audio.synthesizes(), false, Some(audio));
    }

    /// A register write (as [`Self::write_register_at`]), settling owed flushes first
    /// unless the write skips its catch-up.
    pub(crate) fn write_register_owing(
        &mut self,
        reg: u8,
        value: u8,
        div_apu_bit_set: bool,
        audio: &mut AudioOut,
    ) {
        let synthesize = audio.synthesizes();
        self.write_register_settling(reg, value, div_apu_bit_set, synthesize, Some(audio));
    }

    /// Before the machine hands the state back: the owed flushes, then the skipped
    /// catch-ups ([`Self::settle_skipped_catch_ups`]).
    pub(crate) fn settle_for_host(&mut self, audio: &mut AudioOut) {
        self.settle_owed_flushes(audio);
        self.settle_skipped_catch_ups(audio.synthesizes());
    }
}
