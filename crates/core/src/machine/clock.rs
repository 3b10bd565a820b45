//! The clock of the deferred ticks (see "The clock" on `Machine`): where the components
//! stand, where the current quiet window ends, and the M-cycle now.

use super::*;

/// The deferred ticks' clock. Between ticks `ticks_left >= 1`, the current M-cycle is
/// `full_tick_m_cycle - ticks_left`, and the components have ticked up to
/// `synced_m_cycles`, at most the settled `hw.m_cycles`, itself at most the current
/// M-cycle. Only the machine's run holds it: `State` never sees a deferred tick.
pub(super) struct Clock {
    /// The M-cycle up to which the timer, PPU and APU have ticked (at most `hw.m_cycles`).
    pub(super) synced_m_cycles: u64,
    /// The first M-cycle whose tick must run in full; the ones before it (from
    /// `synced_m_cycles` on) are quiet.
    pub(super) full_tick_m_cycle: u64,
    /// `full_tick_m_cycle` minus the current M-cycle: at least 1 between ticks, and the
    /// tick that brings it to 0 runs in full. Stale while the run loop's `RunBus` holds the
    /// count, which hands it back for every call on the machine (`Bus::far`).
    pub(super) ticks_left: u64,
    /// The M-cycle at which the run loop stops (`Machine::set_stop_m_cycle`): the quiet
    /// window ends there, so that its tick runs in full and sets `checks_due`.
    pub(super) stop_m_cycle: u64,
    /// `full_tick_m_cycle` as an I/O write found it, before its sync ended the window
    /// (`Machine::recheck_quiet_after_write`).
    pub(super) window_end_before_write: u64,
}

impl Clock {
    /// Synced at `now`, with the next M-cycle's tick in full and no stop.
    pub(super) fn new(now: u64) -> Clock {
        Clock {
            synced_m_cycles: now,
            full_tick_m_cycle: now.wrapping_add(1),
            ticks_left: 1,
            stop_m_cycle: u64::MAX,
            window_end_before_write: 0,
        }
    }

    /// The current M-cycle.
    #[inline(always)]
    pub(super) fn now(&self) -> u64 {
        self.full_tick_m_cycle.wrapping_sub(self.ticks_left)
    }

    /// Counts one M-cycle's tick; true when it is the one to run in full.
    #[inline(always)]
    pub(super) fn count_tick(&mut self) -> bool {
        self.ticks_left -= 1;
        self.ticks_left == 0
    }

    /// The next tick to run in full is the one of M-cycle `m_cycle`, counted from the
    /// settled M-cycle `now`.
    #[inline(always)]
    pub(super) fn set_full_tick(&mut self, m_cycle: u64, now: u64) {
        self.full_tick_m_cycle = m_cycle;
        self.ticks_left = m_cycle.wrapping_sub(now);
    }

    /// Where a quiet window that would end at `end` may end, from the settled M-cycle
    /// `now`: never before the next M-cycle, nor after the run loop's stop.
    #[inline(always)]
    pub(super) fn window_end(&self, end: u64, now: u64) -> u64 {
        end.min(self.stop_m_cycle).max(now + 1)
    }

    /// Moves the current M-cycle on by `m_cycles` inside the quiet window (whose last tick
    /// still runs in full).
    #[inline(always)]
    pub(super) fn skip(&mut self, m_cycles: u64) {
        debug_assert!(
            m_cycles < self.ticks_left,
            "a skip stays inside the quiet window"
        );
        self.ticks_left -= m_cycles;
    }
}

impl<'a> Machine<'a> {
    /// The current M-cycle (`hw.m_cycles` may lag behind it inside a quiet window).
    #[inline(always)]
    pub(crate) fn m_cycles(&self) -> u64 {
        self.clock.now()
    }

    /// Brings `hw.m_cycles` up to the current M-cycle (see "The clock").
    #[inline(always)]
    pub(super) fn settle_clock(&mut self) {
        self.hw.m_cycles = self.clock.now();
    }

    /// The next tick to run in full is the one of M-cycle `m_cycle`, after the settled
    /// `hw.m_cycles`.
    #[inline(always)]
    pub(super) fn set_full_tick_m_cycle(&mut self, m_cycle: u64) {
        self.clock.set_full_tick(m_cycle, self.hw.m_cycles);
    }
}

#[cfg(test)]
mod tests {
    use super::Clock;

    #[test]
    fn a_new_clock_runs_the_next_tick_in_full() {
        let mut clock = Clock::new(100);
        assert_eq!(clock.now(), 100);
        assert!(clock.count_tick());
        assert_eq!(clock.now(), 101);
    }

    #[test]
    fn quiet_ticks_count_down_to_the_window_end() {
        let mut clock = Clock::new(10);
        clock.set_full_tick(15, 10);
        for now in 11..15 {
            assert!(!clock.count_tick());
            assert_eq!(clock.now(), now);
        }
        assert!(clock.count_tick());
        assert_eq!(clock.now(), 15);
    }

    #[test]
    fn a_window_ends_after_now_and_at_the_stop() {
        let mut clock = Clock::new(0);
        assert_eq!(clock.window_end(50, 10), 50);
        assert_eq!(clock.window_end(5, 10), 11);
        clock.stop_m_cycle = 30;
        assert_eq!(clock.window_end(50, 10), 30);
        assert_eq!(clock.window_end(50, 30), 31);
    }

    #[test]
    fn a_skip_moves_now_but_keeps_the_window_end() {
        let mut clock = Clock::new(0);
        clock.set_full_tick(20, 0);
        clock.skip(7);
        assert_eq!(clock.now(), 7);
        assert_eq!(clock.full_tick_m_cycle, 20);
        for _ in 7..19 {
            assert!(!clock.count_tick());
        }
        assert!(clock.count_tick());
        assert_eq!(clock.now(), 20);
    }

    #[test]
    fn a_settled_clock_restarts_its_window_from_the_settled_m_cycle() {
        // What `set_full_tick` promises whatever `ticks_left` was: now stays put.
        let mut clock = Clock::new(0);
        clock.set_full_tick(100, 0);
        for _ in 0..40 {
            clock.count_tick();
        }
        let now = clock.now();
        clock.set_full_tick(now + 3, now);
        assert_eq!(clock.now(), now);
        assert_eq!(clock.ticks_left, 3);
    }
}
