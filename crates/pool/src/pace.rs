//! How long threads spin before they park, and when an item moves to a faster thread: the
//! pool's timing policy, apart from its synchronization.

use std::time::{Duration, Instant};

/// How long a thread spins for the next step (a worker) or for the others to finish (the
/// waiter) before it parks. Spinning saves the wake-up of a parked thread (tens of
/// microseconds in a virtual machine) when two threads' equal shares end close together,
/// which is the usual case. It is short because a spinning thread holds its CPU, and on a
/// busy machine that CPU is what a descheduled thread of ours is waiting for.
pub(crate) const SPIN: Duration = Duration::from_micros(100);

/// How many items a thread keeps in hand at once, running one piece of each in turn (when
/// there is more than one thread). Each waits between its pieces, set aside for another
/// thread to take over: when one thread runs out of items to start, it takes those the
/// others have set aside, so the threads end a step within about a piece of each other
/// rather than an item's whole part. Two keep both items' memory in the core's own cache.
pub(crate) const IN_HAND: usize = 2;

/// When a thread hands an item it runs alone over to a thread out of work, at a piece's
/// end. The CPUs of a virtual machine often run at different speeds for a while (the host
/// shares them out), and a step waits for its slowest thread: handing that thread's
/// remaining pieces to a faster one shortens the step, at the cost of the item's memory
/// moving between caches.
pub(crate) struct Handover {
    /// The taker's pieces must be at least this much faster (numerator, denominator):
    /// small differences are noise.
    pub(crate) faster_by: (u64, u64),
    /// The gain (pieces left times the piece time saved) must pass this: what the move
    /// costs, an estimate.
    pub(crate) cost_nanos: u64,
    /// How long a thread out of work lingers at most for a handover.
    pub(crate) linger_nanos: u64,
    /// How long a thread that handed an item over leaves it for the taker.
    pub(crate) grace: Duration,
}

pub(crate) const HANDOVER: Handover = Handover {
    faster_by: (4, 5),
    cost_nanos: 30_000,
    linger_nanos: 1_000_000,
    grace: Duration::from_micros(50),
};

/// A thread's recent piece time: an exponential moving average over its last few pieces.
#[derive(Default)]
pub(crate) struct PieceClock {
    nanos: u64,
}

impl PieceClock {
    pub(crate) fn record(&mut self, piece: Duration) {
        let piece = u64::try_from(piece.as_nanos()).unwrap_or(u64::MAX);
        self.nanos = if self.nanos == 0 {
            piece
        } else {
            (self.nanos * 3 + piece) / 4
        };
    }

    /// 0 before the first piece.
    pub(crate) fn nanos(&self) -> u64 {
        self.nanos
    }
}

/// Spins for `SPIN` until `done()`, then parks until it (a spurious or stale wake-up just
/// checks again), giving up at `deadline`. True if `done()`.
pub(crate) fn wait_until(done: impl Fn() -> bool, deadline: Option<Instant>) -> bool {
    let start = Instant::now();
    let mut spins = 0u32;
    while !done() {
        spins = spins.wrapping_add(1);
        // The clock is read every 64 turns only: in a virtual machine a read can cost as
        // much as the wait it measures.
        if !spins.is_multiple_of(64) {
            std::hint::spin_loop();
            continue;
        }
        let now = Instant::now();
        match deadline {
            Some(deadline) if now >= deadline => return done(),
            Some(deadline) if now - start >= SPIN => std::thread::park_timeout(deadline - now),
            None if now - start >= SPIN => std::thread::park(),
            _ => std::hint::spin_loop(),
        }
    }
    true
}
