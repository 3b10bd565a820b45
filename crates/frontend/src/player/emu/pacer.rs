//! Pacing by the exact emulated clock: speedrun mode's, and an attached debugger's continue.

use super::FRAME_DURATION;
use std::time::{Duration, Instant};

/// Each frame is shown when the wall clock reaches its emulated time,
/// computed from the emulated M-cycles since an anchor in integer nanoseconds, so the rate
/// is exactly 1,048,576 M-cycles a second (59.7275 frames/s) with no rounding that adds up
/// (the per-frame `FRAME_DURATION` drops 0.3 ns a frame). After a stall of more than four
/// frames the anchor moves, rather than racing to catch up.
pub(super) struct Pacer {
    anchor: Instant,
    anchor_cycle: Option<u64>,
}

impl Pacer {
    pub(super) fn new() -> Pacer {
        Pacer {
            anchor: Instant::now(),
            anchor_cycle: None,
        }
    }

    /// Sleeps until the emulated time of timeline cycle `cycle` has passed on the wall clock.
    pub(super) fn wait_for(&mut self, cycle: u64) {
        let now = Instant::now();
        let Some(anchor_cycle) = self.anchor_cycle.filter(|&c| c <= cycle) else {
            (self.anchor, self.anchor_cycle) = (now, Some(cycle));
            return;
        };
        let nanos = u128::from(cycle - anchor_cycle) * 1_000_000_000
            / u128::from(backspin_core::M_CYCLES_PER_SECOND);
        let due = self.anchor + Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
        if due > now {
            std::thread::sleep(due - now);
        } else if now - due > 4 * FRAME_DURATION {
            (self.anchor, self.anchor_cycle) = (now, Some(cycle));
        }
    }
}
