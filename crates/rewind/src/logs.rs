//! The logs of everything from outside the program that re-simulation must repeat, each
//! with the timeline cycle it was made at: buttons ([`InputLog`]), host time for the
//! cartridge clock, resets and state loads, and memory writes. The [`Rewinder`] decides
//! when they fork with its history; this module only keeps them.
//!
//! [`Rewinder`]: crate::Rewinder

use crate::input_log::InputLog;
use backspin_core::{Core, State};

/// Host-time events kept for re-simulation (one per session start or resume in practice).
pub(crate) const RTC_LOG_MAX: usize = 4096;
/// Resets kept for re-simulation (a player presses reset rarely; the oldest go first).
pub(crate) const RESET_LOG_MAX: usize = 4096;

/// The kinds of input, in the order they apply when several share a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum EventKind {
    Reset = 0,
    Rtc = 1,
    Buttons = 2,
    Write = 3,
}

/// How many `EventKind`s there are (the length of per-kind arrays).
pub(crate) const EVENT_KINDS: usize = 4;

/// A write to memory from outside the program (a script or a cheat), logged like a button
/// so re-simulation repeats it at its exact cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryWrite {
    /// The timeline cycle it was made at.
    pub cycle: u64,
    /// `None`: through the memory map, as the CPU's write would act (`Core::poke`: MBC and
    /// I/O registers included). `Some(bank)`: straight into that bank's memory
    /// (`Core::poke_banked`).
    pub bank: Option<u16>,
    /// The address written.
    pub addr: u16,
    /// The byte written.
    pub value: u8,
}

impl MemoryWrite {
    /// Makes the write on `core`. A banked write that has no target does nothing (the
    /// timeline checks it before logging it).
    pub(crate) fn apply(&self, core: &mut Core) {
        match self.bank {
            None => {
                core.poke(self.addr, self.value);
            }
            Some(bank) => {
                let _ = core.poke_banked(bank, self.addr, self.value);
            }
        }
    }
}

/// A logged write and the present frame when it was made (trimming drops the writes that
/// only frames older than history needed).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoggedWrite {
    pub(crate) write: MemoryWrite,
    pub(crate) frame: u64,
}

/// A reset (power cycle) or a state load on the timeline. Both replace the machine's state
/// and its M-cycle clock, so the timeline counts its own cycles: timeline cycle = `base` +
/// the core's M-cycles (wrapping: a loaded state may hold more M-cycles than the timeline
/// has run, so `base` is taken modulo 2^64) for every state from `frame` on (until the next
/// mark).
#[derive(Clone)]
pub(crate) struct ResetMark {
    /// Timeline cycle at which the reset or load happened.
    pub(crate) cycle: u64,
    /// The timeline frame during which it happened: that frame's state and later ones
    /// count from `base`.
    pub(crate) frame: u64,
    /// Timeline cycle of the core's M-cycle 0 after the mark.
    pub(crate) base: u64,
    /// `Some`: a state load, with the state loaded (boxed: loads are rare, and the log is
    /// the one place that still knows the state once history moved on). `None`: a reset.
    pub(crate) loaded: Option<Box<State>>,
}

impl ResetMark {
    /// The same event: same time and same kind, and for a load the same state.
    pub(crate) fn same_as(&self, other: &ResetMark) -> bool {
        let loaded = match (&self.loaded, &other.loaded) {
            (None, None) => true,
            (Some(a), Some(b)) => a.as_bytes() == b.as_bytes(),
            _ => false,
        };
        self.cycle == other.cycle && self.frame == other.frame && self.base == other.base && loaded
    }

    /// Replays the mark on `core`.
    pub(crate) fn apply(&self, core: &mut Core) {
        match &self.loaded {
            Some(state) => core.load_state(state),
            None => core.reset(),
        }
    }
}

/// The logs, oldest first.
pub(crate) struct Logs {
    /// Joypad changes.
    pub(crate) buttons: InputLog,
    /// Host time handed to a cartridge clock: (timeline cycle, seconds added). Rare (a
    /// session start, a resume), so a plain list, capped at `RTC_LOG_MAX` entries.
    pub(crate) rtc: Vec<(u64, u64)>,
    /// Resets and loads (rare: a plain list).
    pub(crate) resets: Vec<ResetMark>,
    /// Memory writes from outside the program, in the order made (so by cycle).
    pub(crate) writes: Vec<LoggedWrite>,
    /// (timeline cycle, count): the writes this run made at that cycle, which are the first
    /// `count` logged there. A fork at that cycle keeps them.
    pub(crate) writes_made: (u64, usize),
}

impl Logs {
    pub(crate) fn new() -> Logs {
        Logs {
            buttons: InputLog::new(),
            rtc: Vec::new(),
            resets: Vec::new(),
            writes: Vec::new(),
            writes_made: (0, 0),
        }
    }

    /// Forgets every logged input.
    pub(crate) fn clear(&mut self) {
        self.buttons.clear();
        self.rtc.clear();
        self.resets.clear();
        self.writes.clear();
        self.writes_made = (0, 0);
    }

    /// How many writes this run made at timeline cycle `cycle` (since the last seek).
    pub(crate) fn writes_made_at(&self, cycle: u64) -> usize {
        if self.writes_made.0 == cycle {
            self.writes_made.1
        } else {
            0
        }
    }

    /// The writes logged at exactly timeline cycle `cycle`, in the order made.
    pub(crate) fn writes_at(&self, cycle: u64) -> impl Iterator<Item = MemoryWrite> + '_ {
        let first = self.writes.partition_point(|w| w.write.cycle < cycle);
        self.writes[first..]
            .iter()
            .map(|w| w.write)
            .take_while(move |w| w.cycle == cycle)
    }

    /// Drops the logged writes made before `frame` (with history off nothing re-simulates,
    /// so only the writes of the frame in progress matter).
    pub(crate) fn forget_writes_before(&mut self, frame: u64) {
        let old = self.writes.partition_point(|w| w.frame < frame);
        self.writes.drain(..old);
    }

    /// States held by logged loads.
    pub(crate) fn loads_held(&self) -> usize {
        self.resets.iter().filter(|r| r.loaded.is_some()).count()
    }

    pub(crate) fn truncate_from(&mut self, cycle: u64) {
        self.buttons.truncate_from(cycle);
        self.rtc.retain(|&(c, _)| c < cycle);
        self.resets.retain(|r| r.cycle < cycle);
        self.writes.retain(|w| w.write.cycle < cycle);
    }

    /// The cycle of the newest input of `kind` logged, if any (each log is in cycle order).
    pub(crate) fn last_cycle(&self, kind: EventKind) -> Option<u64> {
        match kind {
            EventKind::Reset => self.resets.last().map(|r| r.cycle),
            EventKind::Rtc => self.rtc.last().map(|&(c, _)| c),
            EventKind::Buttons => self.buttons.last().map(|e| e.m_cycle),
            EventKind::Write => self.writes.last().map(|w| w.write.cycle),
        }
    }

    /// Which kinds of input the logs hold at exactly timeline cycle `cycle`.
    pub(crate) fn logged_at(&self, cycle: u64) -> [bool; EVENT_KINDS] {
        let mut logged = [false; EVENT_KINDS];
        logged[EventKind::Write as usize] = self.writes_at(cycle).next().is_some();
        logged[EventKind::Reset as usize] = self.resets.iter().any(|r| r.cycle == cycle);
        logged[EventKind::Rtc as usize] = self.rtc.iter().any(|&(c, _)| c == cycle);
        logged[EventKind::Buttons as usize] = self
            .buttons
            .events_from(cycle)
            .next()
            .is_some_and(|e| e.m_cycle == cycle);
        logged
    }

    /// The timeline cycle at which the states of `frame` count M-cycle 0 (the latest reset
    /// during or before that frame; 0 before any).
    pub(crate) fn cycle_base(&self, frame: u64) -> u64 {
        let after = self.resets.partition_point(|r| r.frame <= frame);
        after.checked_sub(1).map_or(0, |i| self.resets[i].base)
    }

    /// Bytes of the input, clock and reset logs (spare input chunks included).
    pub(crate) fn log_bytes(&self) -> usize {
        self.buttons.memory_bytes()
            + self.rtc.capacity() * std::mem::size_of::<(u64, u64)>()
            + self.resets.capacity() * std::mem::size_of::<ResetMark>()
            + self.loads_held() * size_of::<State>()
            + self.writes.capacity() * std::mem::size_of::<LoggedWrite>()
    }
}
