//! [`Rewinder`]: the public face of the crate. Captures snapshots into the ring, logs inputs,
//! seeks (with or without re-simulating on a [`Core`]), steps back and forward, and forks
//! the timeline when the player's input departs from the logged future.

use crate::codec::{self, Apply, DecodeError, Decoder, Encoder};
use crate::input_log::InputLog;
use crate::ring::{PushError, Ring};
use backspin_core::{
    Buttons, Core, Events, FrameBounds, M_CYCLES_PER_FRAME, M_CYCLES_PER_SECOND, State,
};
use bytemuck::Zeroable;

mod history_file;
pub use history_file::HistoryError;

const STATE_LEN: usize = size_of::<State>();

/// Cost of reconstructing a state from a keyframe, in units of one delta patch (zeroing the
/// buffer plus decoding a few KiB of LZ4), used to pick the cheapest path for a seek.
const KEYFRAME_COST: usize = 40;
/// Cost of copying a whole state, in delta patches.
const COPY_COST: usize = 4;
/// Until the first learned Huffman code, keyframes come this often (the first group's
/// statistics are what the code is built from).
const EARLY_KEYFRAME: u32 = 120;
/// Host-time events kept for re-simulation (one per session start or resume in practice).
const RTC_LOG_MAX: usize = 4096;
/// Resets kept for re-simulation (a player presses reset rarely; the oldest go first).
const RESET_LOG_MAX: usize = 4096;

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
    fn same_as(&self, other: &ResetMark) -> bool {
        let loaded = match (&self.loaded, &other.loaded) {
            (None, None) => true,
            (Some(a), Some(b)) => a.as_bytes() == b.as_bytes(),
            _ => false,
        };
        self.cycle == other.cycle && self.frame == other.frame && self.base == other.base && loaded
    }

    /// Replays the mark on `core`.
    fn apply(&self, core: &mut Core) {
        match &self.loaded {
            Some(state) => core.load_state(state),
            None => core.reset(),
        }
    }
}

/// How the rewinder stores history.
#[derive(Clone, Debug)]
pub struct Config {
    /// Bytes for the snapshot ring (records + index). Allocated once.
    pub budget_bytes: usize,
    /// Store every `capture_every`-th frame (1 = every frame). Frames in between are
    /// re-simulated from the input log on seek: 4 gives roughly 3× the history for about
    /// four frames of emulation per seek.
    pub capture_every: u32,
    /// A keyframe (a whole state) every this many stored snapshots, so a seek never
    /// applies more than about half this many patches.
    pub keyframe_interval: u32,
    /// ... or sooner, once the deltas since the last keyframe exceed this many bytes, which
    /// bounds seek time in bytes: a game with small deltas gets long groups (keyframes and
    /// their tables cost less, codes are learned from more frames), one that churns a lot
    /// gets short ones. Defaults 1200 / 160 KiB measured against 600 / 512 KiB: 3 % smaller
    /// on pocket.gb (~200 B deltas, so ~800-frame groups, seek p99 unchanged at ~2 ms), 8 %
    /// on shocklobster.gb.
    pub keyframe_chain_bytes: usize,
}

impl Config {
    /// The default settings with a history of at most `budget_bytes`.
    pub fn new(budget_bytes: usize) -> Config {
        Config {
            budget_bytes,
            capture_every: 1,
            keyframe_interval: 1200,
            keyframe_chain_bytes: 160 * 1024,
        }
    }
}

/// What went wrong with a seek. None of these lose the running game: the caller's core is
/// only touched once a state has been fully and successfully rebuilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RewindError {
    /// Nothing has been captured yet.
    #[error("the rewind buffer is empty")]
    Empty,
    /// The frame asked for is older than the oldest held or newer than the newest.
    #[error("frame {frame} is not in the rewind buffer (it holds frames {oldest}..={newest})")]
    OutOfRange {
        /// The frame asked for.
        frame: u64,
        /// The oldest frame held.
        oldest: u64,
        /// The newest frame held.
        newest: u64,
    },
    /// A stored record does not decode (a bug or memory corruption).
    #[error("rewind history is corrupt: {0}")]
    Corrupt(#[from] DecodeError),
    /// Re-simulating towards the target produced no frames.
    #[error("re-simulation did not reach the target frame (the core stopped producing frames)")]
    Stalled,
    /// The timeline keeps no history.
    #[error("rewind is off (a history budget of 0)")]
    Off,
}

/// What `capture` did with a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Captured {
    /// Stored as a delta (plus a keyframe when `keyframe`); `bytes` includes index entries.
    Stored {
        /// Bytes written.
        bytes: usize,
        /// Whether a keyframe was written too.
        keyframe: bool,
    },
    /// Not a capture point under thinning.
    Skipped,
    /// Replaying an already-recorded future: the state matched, nothing was written.
    Replayed,
    /// Replaying, but the state differed: the newer history was dropped and this stored.
    Forked {
        /// Bytes written.
        bytes: usize,
    },
    /// The record did not fit the budget at all (budget far too small).
    TooLarge,
}

/// What a core-level seek did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeekReport {
    /// The stored snapshot the re-simulation started from.
    pub snapshot_frame: u64,
    /// Frames emulated after restoring it.
    pub resimulated_frames: u64,
    /// True when at least one frame was emulated, so `core.frame()` holds exactly the
    /// picture drawn during the target frame. False only for the oldest frame. (With the
    /// LCD off the PPU draws nothing and the buffer keeps an older picture; a real DMG
    /// shows a blank screen then, which is what a frontend should show.)
    pub picture_exact: bool,
    /// What the re-simulated frames reported (e.g. `BATTERY_DIRTY` when replaying a game's
    /// save).
    pub events: Events,
}

/// A state rebuilt from history.
pub struct Snapshot<'a> {
    /// The frame it is the state after.
    pub frame: u64,
    /// The state.
    pub state: &'a State,
}

/// Numbers for a user-facing gauge and for benchmarks (all sizes in bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    /// The oldest frame that can be returned to.
    pub oldest_frame: Option<u64>,
    /// The newest frame held.
    pub newest_frame: Option<u64>,
    /// Emulated seconds between the oldest and newest frame held.
    pub seconds_held: f64,
    /// Stored snapshots (frames) and keyframes currently held, counted by records.
    pub records_held: usize,
    /// Bytes of the budget in use (records and index entries).
    pub used_bytes: usize,
    /// The budget.
    pub capacity_bytes: usize,
    /// Bytes ever written into the ring (records + 8-byte index entries).
    pub bytes_written: u64,
    /// Snapshots ever stored.
    pub snapshots_written: u64,
    /// Keyframes ever stored.
    pub keyframes_written: u64,
    /// Records dropped, oldest first, to make room.
    pub evicted_records: u64,
    /// Times the ring's write position wrapped around.
    pub ring_wraps: u64,
    /// Times a replay diverged and the newer history was dropped.
    pub forks: u64,
    /// Joypad changes held in the input log.
    pub input_events: usize,
    /// Bytes the input log holds.
    pub input_log_bytes: usize,
    /// Size of the most recent keyframe record.
    pub last_keyframe_bytes: usize,
}

/// Rewind history for one running game.
///
/// Frames are numbered by the caller, one per emulated frame (use `state.hw.frames`).
/// Snapshots are taken after `Core::run_frame` returns; inputs are recorded with the
/// M-cycle at which they are applied (see [`Rewinder::record_input`]). Re-simulation applies
/// each logged input when the core's clock reaches its M-cycle, at an instruction boundary,
/// exactly as the live run did, and a snapshot holds the state *before* any input stamped
/// with its own M-cycle.
pub struct Rewinder {
    config: Config,
    ring: Ring,
    encoder: Encoder,
    decoder: Decoder,
    input: InputLog,
    /// Host time handed to a cartridge clock: (timeline cycle, seconds added). Rare (a
    /// session start, a resume), so a plain list, capped at `RTC_LOG_MAX` entries.
    rtc_log: Vec<(u64, u64)>,
    /// Resets, oldest first (rare: a plain list).
    resets: Vec<ResetMark>,
    /// Memory writes from outside the program, in the order made (so by cycle).
    writes: Vec<LoggedWrite>,
    /// (timeline cycle, count): the writes this run made at that cycle, which are the first
    /// `count` logged there. A fork at that cycle keeps them.
    writes_made: (u64, usize),
    /// Uncompressed copy of the newest stored state: a capture is one pass against it.
    newest: Box<State>,
    /// A scratch state that seeks rebuild into, and the stored frame it holds.
    cursor: Box<State>,
    cursor_frame: Option<u64>,
    /// Frame of the oldest keyframe in the ring: history starts there, since the deltas
    /// before it may need the Huffman code of a keyframe that was overwritten.
    first_key_frame: Option<u64>,
    /// The frame the caller is at: the last frame captured, replayed or sought to.
    present: Option<u64>,
    deltas_since_key: u32,
    chain_bytes_since_key: usize,
    /// A state was loaded since the last capture: the next stored frame gets a keyframe, so
    /// trimming history for the budget can drop everything before a load (and the boxed
    /// state the log holds for it).
    keyframe_due: bool,
    /// While set (a movie is being recorded from this frame), the logs keep every input from
    /// it on, whatever history is evicted: the movie is written from them.
    logs_pinned_from: Option<u64>,
    stats: Stats,
}

impl Rewinder {
    /// A history of at most `budget_bytes`, default settings.
    pub fn new(budget_bytes: usize) -> Rewinder {
        Rewinder::with_config(Config::new(budget_bytes))
    }

    /// A history with explicit settings.
    pub fn with_config(config: Config) -> Rewinder {
        let config = Config {
            capture_every: config.capture_every.max(1),
            keyframe_interval: config.keyframe_interval.max(1),
            ..config
        };
        Rewinder {
            ring: Ring::new(config.budget_bytes - log_reserve(config.budget_bytes)),
            encoder: Encoder::new(STATE_LEN),
            decoder: Decoder::new(STATE_LEN),
            input: InputLog::new(),
            rtc_log: Vec::new(),
            resets: Vec::new(),
            writes: Vec::new(),
            writes_made: (0, 0),
            newest: bytemuck::zeroed_box(),
            cursor: bytemuck::zeroed_box(),
            cursor_frame: None,
            first_key_frame: None,
            present: None,
            deltas_since_key: 0,
            chain_bytes_since_key: 0,
            keyframe_due: false,
            logs_pinned_from: None,
            stats: Stats {
                capacity_bytes: config.budget_bytes,
                ..Stats::default()
            },
            config,
        }
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Forgets all history and every logged input.
    pub fn clear(&mut self) {
        self.ring.clear();
        self.input.clear();
        self.rtc_log.clear();
        self.resets.clear();
        self.writes.clear();
        self.writes_made = (0, 0);
        self.first_key_frame = None;
        self.decoder.forget_meta();
        self.cursor_frame = None;
        self.present = None;
        self.deltas_since_key = 0;
        self.chain_bytes_since_key = 0;
    }

    /// The oldest frame that can be returned to (`None` before the first capture).
    pub fn oldest_frame(&self) -> Option<u64> {
        if self.ring.is_empty() {
            None
        } else {
            self.first_key_frame
        }
    }

    /// The newest frame held.
    pub fn newest_frame(&self) -> Option<u64> {
        (!self.ring.is_empty()).then(|| self.ring.frame(self.ring.len() - 1))
    }

    /// The frame the caller is at (last captured, replayed or sought to).
    pub fn present_frame(&self) -> Option<u64> {
        self.present
    }

    /// The joypad changes logged with the history.
    pub fn input_log(&self) -> &InputLog {
        &self.input
    }

    /// Sizes and counts, for a gauge and benchmarks.
    pub fn stats(&self) -> Stats {
        let mut stats = self.stats;
        stats.oldest_frame = self.oldest_frame();
        stats.newest_frame = self.newest_frame();
        stats.seconds_held = match (stats.oldest_frame, stats.newest_frame) {
            (Some(a), Some(b)) => frames_to_seconds(b - a),
            _ => 0.0,
        };
        stats.records_held = self.ring.len();
        stats.used_bytes = self.ring.used_bytes();
        stats.capacity_bytes = self.ring.capacity();
        stats.evicted_records = self.ring.evicted;
        stats.ring_wraps = self.ring.wraps;
        stats.input_events = self.input.len();
        stats.input_log_bytes = self.input.memory_bytes();
        stats
    }

    /// Logs `buttons` as held from timeline cycle `cycle` on. While a recorded future exists
    /// beyond the present frame (after a seek), matching input keeps it; the first differing
    /// input forks: snapshots after the present frame and inputs from `cycle` on are dropped.
    ///
    /// Timeline cycles are the core's M-cycles plus the offset of the latest reset (see
    /// [`crate::Timeline`], which stamps and applies inputs for a frontend).
    pub fn record_input(&mut self, cycle: u64, buttons: u8) {
        if self.has_future() {
            if self.input.buttons_at(cycle).unwrap_or(0) == buttons {
                return;
            }
            self.fork_logs_at(cycle, EventKind::Buttons);
        }
        self.input.push(cycle, buttons, self.present.unwrap_or(0));
    }

    /// Logs that `seconds` of host time were added to the cartridge clock at timeline cycle
    /// `cycle`. While a recorded future exists, the same event at the same cycle keeps it;
    /// any other forks the timeline, as a differing button press does.
    pub fn record_rtc_advance(&mut self, cycle: u64, seconds: u64) {
        if self.has_future() {
            if self.rtc_log.contains(&(cycle, seconds)) {
                return;
            }
            self.fork_logs_at(cycle, EventKind::Rtc);
        }
        self.rtc_log.retain(|&(c, _)| c < cycle);
        if self.rtc_log.len() >= RTC_LOG_MAX {
            self.rtc_log.remove(0);
        }
        self.rtc_log.push((cycle, seconds));
    }

    /// Logs a reset at timeline cycle `cycle`, during frame `frame` (the one about to run),
    /// after which the core's M-cycle 0 is timeline cycle `base`. Forks like any input
    /// unless the recorded future holds the same reset.
    ///
    /// A state load is logged the same way (`mark.loaded`): several marks may share a cycle
    /// (a load, then a reset before the next frame) and apply in the order made.
    pub(crate) fn record_reset(&mut self, mark: ResetMark) {
        if self.has_future() {
            if self.resets.iter().any(|r| r.same_as(&mark)) {
                return;
            }
            self.fork_logs_at(mark.cycle, EventKind::Reset);
        }
        self.keyframe_due |= mark.loaded.is_some();
        self.resets.retain(|r| r.cycle <= mark.cycle);
        if self.resets.len() >= RESET_LOG_MAX {
            self.resets.remove(0);
        }
        self.resets.push(mark);
    }

    /// Logs `write`, made after the writes this run already made at its cycle. While a
    /// recorded future exists, the same write in the same place keeps it; any other forks
    /// the timeline, as a differing button press does. Writes logged at that cycle beyond
    /// it are dropped: they belong to a run this one replaced.
    pub(crate) fn record_write(&mut self, write: MemoryWrite) {
        let nth = self.writes_made_at(write.cycle);
        self.writes_made = (write.cycle, nth + 1);
        let first = self.writes.partition_point(|w| w.write.cycle < write.cycle);
        if self.has_future() {
            if self
                .writes
                .get(first + nth)
                .is_some_and(|logged| logged.write == write)
            {
                return;
            }
            self.fork_logs_at(write.cycle, EventKind::Write);
        }
        self.writes.truncate(first + nth);
        self.writes.push(LoggedWrite {
            write,
            frame: self.present.unwrap_or(0),
        });
    }

    /// How many writes this run made at timeline cycle `cycle` (since the last seek).
    pub(crate) fn writes_made_at(&self, cycle: u64) -> usize {
        if self.writes_made.0 == cycle {
            self.writes_made.1
        } else {
            0
        }
    }

    /// Drops writes logged at `cycle` that this run did not make (it went on past them):
    /// a fork when they are part of a recorded future.
    pub(crate) fn drop_writes_not_made(&mut self, cycle: u64) {
        let made = self.writes_made_at(cycle);
        if self.writes_at(cycle).nth(made).is_none() {
            return;
        }
        if self.has_future() {
            self.fork_logs_at(cycle, EventKind::Write);
        } else {
            let first = self.writes.partition_point(|w| w.write.cycle < cycle);
            self.writes.truncate(first + made);
        }
    }

    /// Drops the writes this run made at timeline cycle `cycle`: a state load there
    /// replaces the whole machine, so they no longer change anything, and re-simulation
    /// (which applies a cycle's writes after its loads) must not make them after it. A fork
    /// when they are part of a recorded future.
    pub(crate) fn drop_writes_made_at(&mut self, cycle: u64) {
        let made = self.writes_made_at(cycle);
        if made == 0 {
            return;
        }
        if self.has_future() {
            self.fork_logs_at(cycle, EventKind::Write);
        }
        let first = self.writes.partition_point(|w| w.write.cycle < cycle);
        let end = (first + made).min(self.writes.len());
        self.writes.drain(first..end);
        self.writes_made = (cycle, 0);
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

    /// The logged memory writes, oldest first.
    pub fn write_log(&self) -> impl Iterator<Item = MemoryWrite> + '_ {
        self.writes.iter().map(|w| w.write)
    }

    /// Drops the states held by every logged load but the latest: with history off nothing
    /// can be re-simulated, and only the latest mark's `base` is still needed. Marks a
    /// pinned log still needs stay.
    pub(crate) fn forget_loaded_states(&mut self) {
        let mut keep = self.resets.len().saturating_sub(1);
        if let Some(pin) = self.logs_pinned_from {
            keep = keep.min(self.resets.partition_point(|r| r.frame < pin));
        }
        self.resets.drain(..keep);
    }

    /// Keeps every logged input (buttons, clock, resets) from timeline frame `frame` on,
    /// whatever history the budget evicts, until called with `None`: a movie recorded from
    /// that frame is written from these logs. The logs of a long recording are small (8
    /// bytes a button change); history is still evicted as usual. The reset and clock logs
    /// keep their caps of 4,096 entries each.
    pub fn pin_logs_from(&mut self, frame: Option<u64>) {
        self.logs_pinned_from = frame;
    }

    /// States held by logged loads.
    fn loads_held(&self) -> usize {
        self.resets.iter().filter(|r| r.loaded.is_some()).count()
    }

    /// The logged state loads, oldest first: (timeline cycle, timeline frame).
    pub fn load_log(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.resets
            .iter()
            .filter(|r| r.loaded.is_some())
            .map(|r| (r.cycle, r.frame))
    }

    /// Whether stored frames lie beyond the present one (a recorded future, after a seek).
    pub fn has_future(&self) -> bool {
        let present = self.present.unwrap_or(0);
        self.newest_frame().is_some_and(|newest| newest > present)
    }

    /// Drops the future because an input of `kind` at timeline cycle `cycle` departs from
    /// it: snapshots after the present frame, every input after `cycle`, and at `cycle`
    /// itself the inputs of `kind` and of the kinds applied after it (events at one cycle
    /// apply in `EventKind` order, so the earlier kinds there were already matched).
    /// Writes are the exception: the ones this run already made at `cycle` stay, whatever
    /// the kind (they were matched, and the live machine holds them).
    pub(crate) fn fork_logs_at(&mut self, cycle: u64, kind: EventKind) {
        self.fork_after(self.present.unwrap_or(0));
        let from = |k: EventKind| if k >= kind { cycle } else { cycle + 1 };
        self.input.truncate_from(from(EventKind::Buttons));
        self.rtc_log.retain(|&(c, _)| c < from(EventKind::Rtc));
        self.resets.retain(|r| r.cycle < from(EventKind::Reset));
        let before = self.writes.partition_point(|w| w.write.cycle < cycle);
        let through = self.writes.partition_point(|w| w.write.cycle <= cycle);
        self.writes
            .truncate((before + self.writes_made_at(cycle)).min(through));
    }

    fn truncate_logs_from(&mut self, cycle: u64) {
        self.input.truncate_from(cycle);
        self.rtc_log.retain(|&(c, _)| c < cycle);
        self.resets.retain(|r| r.cycle < cycle);
        self.writes.retain(|w| w.write.cycle < cycle);
    }

    /// Which kinds of input the logs hold at exactly timeline cycle `cycle`.
    pub(crate) fn logged_at(&self, cycle: u64) -> [bool; EVENT_KINDS] {
        let mut logged = [false; EVENT_KINDS];
        logged[EventKind::Write as usize] = self.writes_at(cycle).next().is_some();
        logged[EventKind::Reset as usize] = self.resets.iter().any(|r| r.cycle == cycle);
        logged[EventKind::Rtc as usize] = self.rtc_log.iter().any(|&(c, _)| c == cycle);
        logged[EventKind::Buttons as usize] = self
            .input
            .events_from(cycle)
            .next()
            .is_some_and(|e| e.m_cycle == cycle);
        logged
    }

    /// The logged host-time events for cartridge clocks, oldest first: (timeline cycle,
    /// seconds).
    pub fn rtc_log(&self) -> &[(u64, u64)] {
        &self.rtc_log
    }

    /// The logged resets, oldest first: (timeline cycle, timeline frame).
    pub fn reset_log(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.resets
            .iter()
            .filter(|r| r.loaded.is_none())
            .map(|r| (r.cycle, r.frame))
    }

    /// The timeline cycle at which the states of `frame` count M-cycle 0 (the latest reset
    /// during or before that frame; 0 before any).
    pub fn cycle_base(&self, frame: u64) -> u64 {
        let after = self.resets.partition_point(|r| r.frame <= frame);
        after.checked_sub(1).map_or(0, |i| self.resets[i].base)
    }

    /// The present frame is `frame` (a frontend that runs frames without storing them,
    /// e.g. with rewind off, keeps the logs' frame stamps current with this).
    pub(crate) fn set_present(&mut self, frame: u64) {
        self.present = Some(frame);
    }

    /// Offers the state after frame `frame` for storage. Stores it if it is a capture point
    /// (every `capture_every` frames); when replaying a recorded future, checks that it
    /// matches and forks if it does not. Allocation-free.
    pub fn capture(&mut self, state: &State, frame: u64) -> Captured {
        let cycle = self.cycle_base(frame).wrapping_add(state.hw.m_cycles);
        self.capture_at(state, frame, cycle)
    }

    /// `capture`, with the timeline cycle of `state` given by the caller (who knows it even
    /// when the logs still hold a reset that this run did not make).
    pub(crate) fn capture_at(&mut self, state: &State, frame: u64, cycle: u64) -> Captured {
        let Some(newest) = self.newest_frame() else {
            self.present = Some(frame);
            return self.store_first(state, frame);
        };
        if frame > newest {
            self.present = Some(frame);
            if frame - newest < u64::from(self.config.capture_every) {
                return Captured::Skipped;
            }
            return self.append(state, frame);
        }
        // At or before the newest stored frame: replaying a recorded future (or the caller
        // jumped back without seeking).
        let after = self.ring.partition_after(frame);
        let previous = after.checked_sub(1).map(|i| self.ring.frame(i));
        self.present = Some(frame);
        if previous == Some(frame) {
            if self.reconstruct(frame).is_ok() && self.cursor.as_bytes() == state.as_bytes() {
                return Captured::Replayed;
            }
        } else if previous.is_some_and(|p| frame - p < u64::from(self.config.capture_every)) {
            return Captured::Skipped;
        }
        // Diverged: the logged future after this state is no longer ours.
        self.truncate_logs_from(cycle);
        self.fork_after(frame.saturating_sub(1));
        let bytes = match self.newest_frame() {
            None => self.store_first(state, frame),
            Some(_) => self.append(state, frame),
        };
        match bytes {
            Captured::Stored { bytes, .. } => Captured::Forked { bytes },
            other => other,
        }
    }

    fn store_first(&mut self, state: &State, frame: u64) -> Captured {
        self.ring.clear();
        self.decoder.forget_meta();
        self.first_key_frame = None;
        self.cursor_frame = None;
        self.keyframe_due = false;
        *self.newest = *state;
        let record = self.encoder.encode_keyframe(state.as_bytes());
        let len = record.len();
        match self.ring.push(frame, record) {
            Ok(_) => {
                self.encoder.commit_keyframe();
                self.first_key_frame = Some(frame);
                self.stats.keyframes_written += 1;
                self.stats.snapshots_written += 1;
                self.stats.bytes_written += (len + 8) as u64;
                self.stats.last_keyframe_bytes = len;
                self.deltas_since_key = 0;
                self.chain_bytes_since_key = 0;
                Captured::Stored {
                    bytes: len + 8,
                    keyframe: true,
                }
            }
            Err(_) => Captured::TooLarge,
        }
    }

    fn append(&mut self, state: &State, frame: u64) -> Captured {
        let record = self
            .encoder
            .encode_delta(bytemuck::bytes_of_mut(&mut *self.newest), state.as_bytes());
        let delta_len = record.len();
        let evicted = match self.ring.push(frame, record) {
            Ok(evicted) => evicted,
            Err(PushError::TooLarge) | Err(PushError::FrameOutOfRange) => {
                // Cannot chain this one: start over from it.
                return self.store_first(state, frame);
            }
        };
        if evicted > 0 {
            self.after_eviction();
        }
        if self.oldest_frame().is_none_or(|oldest| oldest >= frame) {
            // The ring had to drop every keyframe to fit the delta: nothing to chain from.
            return self.store_first(state, frame);
        }
        self.stats.snapshots_written += 1;
        self.stats.bytes_written += (delta_len + 8) as u64;
        self.deltas_since_key += 1;
        self.chain_bytes_since_key += delta_len;
        let mut bytes = delta_len + 8;
        // Keyframe policy: a fixed interval bounds seek work in patches; the byte limits
        // bound it in bytes and guarantee a keyframe in every quarter of the ring (history
        // starts at the oldest keyframe); the first learned code comes early.
        let keyframe = std::mem::take(&mut self.keyframe_due)
            || self.deltas_since_key >= self.config.keyframe_interval
            || self.chain_bytes_since_key >= self.config.keyframe_chain_bytes
            || self.chain_bytes_since_key >= self.ring.capacity() / 4
            || (self.encoder.code_is_flat() && self.deltas_since_key >= EARLY_KEYFRAME);
        if keyframe {
            let record = self.encoder.encode_keyframe(state.as_bytes());
            let len = record.len();
            if let Ok(evicted) = self.ring.push(frame, record) {
                self.encoder.commit_keyframe();
                self.stats.keyframes_written += 1;
                self.stats.bytes_written += (len + 8) as u64;
                self.stats.last_keyframe_bytes = len;
                bytes += len + 8;
                if evicted > 0 {
                    self.after_eviction();
                }
            }
            self.deltas_since_key = 0;
            self.chain_bytes_since_key = 0;
        }
        self.keep_logs_within_reserve();
        Captured::Stored { bytes, keyframe }
    }

    /// The budget covers the input logs too: when they outgrow their share (inputs that
    /// change nearly every frame over a long history), the oldest history goes, which trims
    /// the logs with it. Allocation-free, like the rest of a capture.
    fn keep_logs_within_reserve(&mut self) {
        let reserve = log_reserve(self.config.budget_bytes);
        // Pinned logs do not shrink with history: evicting it would buy nothing.
        if self.log_bytes() <= reserve || self.logs_pinned_from.is_some() {
            return;
        }
        // Chunks kept for reuse go first (freeing does not allocate).
        self.input.release_spares();
        while self.log_bytes() > reserve
            && (self.input.chunk_count() > 1 || self.loads_held() > 1 || !self.writes.is_empty())
            && self.ring.len() > 1
        {
            // Never the newest keyframe: history must keep one to start from.
            let droppable = self.key_before(self.ring.len()).unwrap_or(0);
            if droppable == 0 {
                break;
            }
            self.ring
                .drop_oldest((self.ring.len() / 32).clamp(1, droppable));
            self.after_eviction();
            self.input.release_spares();
        }
    }

    /// Bytes of the input, clock and reset logs (spare input chunks included).
    fn log_bytes(&self) -> usize {
        self.input.memory_bytes()
            + self.rtc_log.capacity() * std::mem::size_of::<(u64, u64)>()
            + self.resets.capacity() * std::mem::size_of::<ResetMark>()
            + self.loads_held() * STATE_LEN
            + self.writes.capacity() * std::mem::size_of::<LoggedWrite>()
    }

    /// Keeps derived positions consistent after the oldest records went.
    fn after_eviction(&mut self) {
        if self
            .first_key_frame
            .is_none_or(|key| self.ring.is_empty() || self.ring.frame(0) > key)
        {
            self.first_key_frame = self.find_first_key();
        }
        if let Some(oldest) = self.oldest_frame() {
            if self.cursor_frame.is_some_and(|c| c < oldest) {
                self.cursor_frame = None;
            }
            // A pinned log keeps its inputs from the pin on.
            let kept_from = self.logs_pinned_from.map_or(oldest, |pin| pin.min(oldest));
            self.input.trim_before_frame(kept_from);
            self.forget_writes_before(kept_from);
            // Keep the reset that governs the oldest frame and every later one.
            let governing = self.resets.partition_point(|r| r.frame <= kept_from);
            if governing > 1 {
                self.resets.drain(..governing - 1);
            }
        }
    }

    /// Frame of the oldest keyframe record (a scan over at most one keyframe group).
    fn find_first_key(&self) -> Option<u64> {
        (0..self.ring.len())
            .find(|&i| codec::is_keyframe(self.ring.record(i)))
            .map(|i| self.ring.frame(i))
    }

    /// Index of the nearest keyframe record before index `i`.
    fn key_before(&self, i: usize) -> Option<usize> {
        (0..i)
            .rev()
            .find(|&j| codec::is_keyframe(self.ring.record(j)))
    }

    /// Drops every stored frame after `frame`; the newest kept state becomes the base for
    /// the next capture. If the history cannot be decoded, it is dropped whole.
    fn fork_after(&mut self, frame: u64) {
        let keep = self.ring.partition_after(frame);
        if keep == self.ring.len() {
            return;
        }
        self.stats.forks += 1;
        if keep == 0 {
            self.ring.clear();
            self.cursor_frame = None;
            return;
        }
        let last = self.ring.frame(keep - 1);
        if self.reconstruct(last).is_err() {
            self.ring.clear();
            self.cursor_frame = None;
            return;
        }
        *self.newest = *self.cursor;
        self.ring.truncate(keep);
        // Keyframes after the fork are gone: continue with the code of the keyframe that
        // now governs the newest frame, and forget decoded codes (frames may be reused).
        self.decoder.forget_meta();
        match self.key_before(self.ring.len()) {
            Some(k) => match self.encoder.set_meta(self.ring.record(k)) {
                Ok(()) => {}
                Err(_) => {
                    self.ring.clear();
                    self.cursor_frame = None;
                    return;
                }
            },
            None => {
                self.ring.clear();
                self.cursor_frame = None;
                return;
            }
        }
        // Recount the chain since the last keyframe so the keyframe policy carries on.
        self.deltas_since_key = 0;
        self.chain_bytes_since_key = 0;
        let mut i = self.ring.len();
        while i > 0 {
            i -= 1;
            let record = self.ring.record(i);
            if codec::is_keyframe(record) {
                break;
            }
            self.deltas_since_key += 1;
            self.chain_bytes_since_key += record.len();
            if self.deltas_since_key >= self.config.keyframe_interval {
                break;
            }
        }
    }

    /// The latest stored frame at or before `frame`.
    fn stored_at_or_before(&self, frame: u64) -> Result<u64, RewindError> {
        let (Some(oldest), Some(newest)) = (self.oldest_frame(), self.newest_frame()) else {
            return Err(RewindError::Empty);
        };
        if frame < oldest {
            return Err(RewindError::OutOfRange {
                frame,
                oldest,
                newest,
            });
        }
        let after = self.ring.partition_after(frame);
        Ok(self.ring.frame(after - 1))
    }

    /// Rebuilds the stored state of `frame` (which must be stored) into `cursor`, by the
    /// cheapest of: walking from the cursor, walking back from the newest state, or decoding
    /// the nearest keyframe before or after and walking from it. Patches add or subtract, so a walk
    /// goes either way.
    fn reconstruct(&mut self, frame: u64) -> Result<(), RewindError> {
        if self.cursor_frame == Some(frame) {
            return Ok(());
        }
        let len = self.ring.len();
        let target_end = self.ring.partition_after(frame);
        debug_assert!(target_end > 0 && self.ring.frame(target_end - 1) == frame);

        use ReconstructSource as Source;
        // A keyframe frame: its keyframe is the state (the delta before it belongs to the
        // previous group, whose models may differ).
        if codec::is_keyframe(self.ring.record(target_end - 1)) {
            return self.start_from(Source::Keyframe(target_end - 1), frame);
        }
        // The next keyframe after the target (within one group's length): a backward walk
        // must not start beyond it, or it would apply deltas of two groups.
        let scan_limit = (target_end + self.config.keyframe_interval as usize + 2).min(len);
        let next_key = (target_end..scan_limit).find(|&i| codec::is_keyframe(self.ring.record(i)));
        let backward_ok = |from_frame: u64| match next_key {
            Some(k) => from_frame <= self.ring.frame(k),
            None => scan_limit == len,
        };
        let mut best: Option<(usize, Source)> = None;
        let consider = |cost: usize, source: Source, best: &mut Option<(usize, Source)>| {
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                *best = Some((cost, source));
            }
        };
        let newest = self.newest_frame().expect("non-empty");
        if backward_ok(newest) {
            consider(len - target_end + COPY_COST, Source::Newest, &mut best);
        }
        if let Some(c) = self.cursor_frame
            && (c < frame || backward_ok(c))
        {
            let cost = self.ring.partition_after(c).abs_diff(target_end);
            consider(cost, Source::Cursor(c), &mut best);
        }
        if let Some(k) = next_key {
            consider(
                KEYFRAME_COST + (k - target_end),
                Source::Keyframe(k),
                &mut best,
            );
        }
        // The nearest keyframe before, scanning no further than could beat `best`.
        let mut i = target_end;
        while i > 0
            && best
                .as_ref()
                .is_none_or(|(c, _)| KEYFRAME_COST + (target_end - i) < *c)
        {
            i -= 1;
            if codec::is_keyframe(self.ring.record(i)) {
                consider(
                    KEYFRAME_COST + (target_end - 1 - i),
                    Source::Keyframe(i),
                    &mut best,
                );
                break;
            }
        }
        let (_, source) = best.ok_or(RewindError::Corrupt(DecodeError::MissingCode))?;
        self.start_from(source, frame)
    }

    /// Loads the chosen starting point into the cursor and walks to `frame`.
    fn start_from(&mut self, source: ReconstructSource, frame: u64) -> Result<(), RewindError> {
        // From here on the cursor is being rewritten.
        self.cursor_frame = None;
        let from = match source {
            ReconstructSource::Cursor(c) => c,
            ReconstructSource::Newest => {
                *self.cursor = *self.newest;
                self.newest_frame().expect("non-empty")
            }
            ReconstructSource::Keyframe(i) => {
                *self.cursor = State::zeroed();
                self.decoder.apply(
                    self.ring.record(i),
                    bytemuck::bytes_of_mut(&mut *self.cursor),
                    Apply::Forward,
                )?;
                self.ring.frame(i)
            }
        };
        self.walk(from, frame)?;
        self.cursor_frame = Some(frame);
        Ok(())
    }

    /// Loads the metadata (Huffman codes and models) of the keyframe at index `key`.
    fn load_meta(&mut self, key: usize) -> Result<(), RewindError> {
        let key_frame = self.ring.frame(key);
        if self.decoder.meta_key() != Some(key_frame) {
            self.decoder.load_meta(key_frame, self.ring.record(key))?;
        }
        Ok(())
    }

    /// Moves the cursor state from stored frame `from` to stored frame `to` by applying the
    /// delta records in between: forward in order; backward in reverse order, then the
    /// mirrored region from `to`'s own record (all of one keyframe group, as `reconstruct`
    /// plans it). Each delta uses the metadata of the keyframe before it.
    fn walk(&mut self, from: u64, to: u64) -> Result<(), RewindError> {
        let (lo, hi) = (from.min(to), from.max(to));
        let range = self.ring.partition_after(lo)..self.ring.partition_after(hi);
        let forward = to >= from;
        let len = range.len();
        // The keyframe governing the record about to be applied, when known.
        let mut governing: Option<usize> = None;
        for k in 0..len {
            let i = if forward {
                range.start + k
            } else {
                range.end - 1 - k
            };
            if codec::is_keyframe(self.ring.record(i)) {
                governing = if forward { Some(i) } else { None };
                continue;
            }
            let key = match governing {
                Some(key) => key,
                None => self
                    .key_before(i)
                    .ok_or(RewindError::Corrupt(DecodeError::MissingCode))?,
            };
            governing = Some(key);
            self.load_meta(key)?;
            let mode = if forward {
                Apply::Forward
            } else {
                Apply::Backward
            };
            self.decoder.apply(
                self.ring.record(i),
                bytemuck::bytes_of_mut(&mut *self.cursor),
                mode,
            )?;
        }
        if !forward && len > 0 {
            // The mirrored region does not undo: rebuild it from the landing frame's own record.
            let own = range.start - 1;
            if codec::is_keyframe(self.ring.record(own)) {
                return Err(RewindError::Corrupt(DecodeError::Malformed));
            }
            let key = match governing {
                Some(key) => key,
                None => self
                    .key_before(own)
                    .ok_or(RewindError::Corrupt(DecodeError::MissingCode))?,
            };
            self.load_meta(key)?;
            self.decoder.apply(
                self.ring.record(own),
                bytemuck::bytes_of_mut(&mut *self.cursor),
                Apply::Landing,
            )?;
        }
        Ok(())
    }

    /// Rebuilds the latest stored state at or before `frame` (the exact frame when every
    /// frame is stored). Use [`Rewinder::seek_core`] to land on any frame exactly.
    pub fn seek(&mut self, frame: u64) -> Result<Snapshot<'_>, RewindError> {
        let stored = self.stored_at_or_before(frame)?;
        self.reconstruct(stored)?;
        self.present = Some(stored);
        Ok(Snapshot {
            frame: stored,
            state: &self.cursor,
        })
    }

    /// The stored state one capture before the present one.
    pub fn step_back(&mut self) -> Option<Snapshot<'_>> {
        let present = self.present.or(self.newest_frame())?;
        let before = self.ring.partition_before(present);
        if before == 0 {
            return None;
        }
        let frame = self.ring.frame(before - 1);
        self.seek(frame).ok()
    }

    /// The stored state one capture after the present one (redo), while the recorded
    /// future lasts.
    pub fn step_forward(&mut self) -> Option<Snapshot<'_>> {
        let present = self.present?;
        let after = self.ring.partition_after(present);
        if after >= self.ring.len() {
            return None;
        }
        let frame = self.ring.frame(after);
        self.seek(frame).ok()
    }

    /// Puts `core` exactly at the end of `frame`: restores the latest stored state before
    /// it and re-simulates with the logged inputs, so the state is byte-identical to the
    /// straight run and `core.frame()` is the picture shown then. `frame` may lie anywhere
    /// from the oldest stored frame to the present. The core is left untouched on error.
    pub fn seek_core(&mut self, core: &mut Core, frame: u64) -> Result<SeekReport, RewindError> {
        let oldest = self.oldest_frame().ok_or(RewindError::Empty)?;
        let newest = self.newest_frame().ok_or(RewindError::Empty)?;
        let last = newest.max(self.present.unwrap_or(newest));
        if frame < oldest || frame > last {
            return Err(RewindError::OutOfRange {
                frame,
                oldest,
                newest: last,
            });
        }
        // Start one frame early when possible so the picture gets drawn.
        let start = if frame > oldest {
            self.stored_at_or_before(frame - 1)?
        } else {
            frame
        };
        self.reconstruct(start)?;
        core.load_state(&self.cursor);
        let frames = frame - start;
        let events = self.resimulate(core, start, frames)?;
        self.present = Some(frame);
        // The core stands before any write logged at this cycle: none is made yet.
        self.writes_made = (0, 0);
        Ok(SeekReport {
            snapshot_frame: start,
            resimulated_frames: frames,
            picture_exact: frames > 0,
            events,
        })
    }

    /// One frame back from the present, exactly (state and picture).
    pub fn step_back_core(&mut self, core: &mut Core) -> Result<SeekReport, RewindError> {
        let present = self
            .present
            .or(self.newest_frame())
            .ok_or(RewindError::Empty)?;
        self.seek_core(core, present.saturating_sub(1))
    }

    /// One frame forward from the present (redo), exactly, while the recorded future lasts.
    pub fn step_forward_core(&mut self, core: &mut Core) -> Result<SeekReport, RewindError> {
        let present = self
            .present
            .or(self.newest_frame())
            .ok_or(RewindError::Empty)?;
        self.seek_core(core, present + 1)
    }

    /// Runs `frames` frames from the core's current state (stored frame `from`), applying
    /// each logged input when the timeline clock reaches its cycle (at an instruction
    /// boundary, as in the live run), and stops at the instruction boundary where the last
    /// frame completes, before any input stamped with that cycle. Frames are counted by the
    /// core's frame counter advancing, so a reset (which restarts it) counts no frame.
    ///
    /// Only the last frame is drawn (if the core draws at all): the others run with the
    /// PPU's pixel output off, which changes no byte of the state, and the last one, run
    /// whole, is the picture of the straight run.
    fn resimulate(&self, core: &mut Core, from: u64, frames: u64) -> Result<Events, RewindError> {
        let drawing = core.drawing();
        let result = self.resimulate_drawing_last(core, from, frames, drawing);
        core.set_drawing(drawing);
        result
    }

    fn resimulate_drawing_last(
        &self,
        core: &mut Core,
        from: u64,
        frames: u64,
        drawing: bool,
    ) -> Result<Events, RewindError> {
        let mut base = self.cycle_base(from);
        let start_cycle = base.wrapping_add(core.m_cycles());
        // Every frame ends within its bounds, which only a reset or load restarts: this
        // bounds a broken log.
        let cycle_limit = start_cycle + (frames + 1) * 2 * FrameBounds::MAX_M_CYCLES;
        let mut inputs = self.input.events_from(start_cycle).peekable();
        let first_rtc = self.rtc_log.partition_point(|&(c, _)| c < start_cycle);
        let mut rtc = self.rtc_log[first_rtc..].iter().peekable();
        let first_reset = self.resets.partition_point(|r| r.cycle < start_cycle);
        let mut resets = self.resets[first_reset..].iter().peekable();
        let first_write = self.writes.partition_point(|w| w.write.cycle < start_cycle);
        let mut writes = self.writes[first_write..].iter().peekable();
        let mut events = Events::empty();
        let mut done = 0;
        let mut bounds = FrameBounds::begin(core);
        while done < frames {
            core.set_drawing(drawing && done + 1 == frames);
            let now = base.wrapping_add(core.m_cycles());
            // A reset or load first (the live run makes it, then applies the frame's input);
            // the frame then runs on to the new machine's first frame end.
            while let Some(reset) = resets.next_if(|r| r.cycle <= now) {
                reset.apply(core);
                base = reset.base;
                let held = self.input.buttons_at(reset.cycle).unwrap_or(0);
                core.set_buttons(Buttons(held));
                bounds = FrameBounds::begin(core);
            }
            let now = base.wrapping_add(core.m_cycles());
            while let Some(&(_, seconds)) = rtc.next_if(|&&(c, _)| c <= now) {
                advance_rtc(core, seconds);
            }
            while let Some(event) = inputs.next_if(|e| e.m_cycle <= now) {
                core.set_buttons(Buttons(event.buttons));
            }
            while let Some(logged) = writes.next_if(|w| w.write.cycle <= now) {
                logged.write.apply(core);
            }
            let next = inputs
                .peek()
                .map_or(u64::MAX, |e| e.m_cycle)
                .min(rtc.peek().map_or(u64::MAX, |&&(c, _)| c))
                .min(resets.peek().map_or(u64::MAX, |r| r.cycle))
                .min(writes.peek().map_or(u64::MAX, |w| w.write.cycle));
            while !bounds.ended(core) && base.wrapping_add(core.m_cycles()) < next {
                events |= core.step();
                if base.wrapping_add(core.m_cycles()) > cycle_limit {
                    return Err(RewindError::Stalled);
                }
            }
            if bounds.ended(core) {
                done += 1;
                bounds = FrameBounds::begin(core);
            }
        }
        Ok(events)
    }
}

/// Adds host time to the cartridge clock through the ROM's mapper (a no-op without one).
fn advance_rtc(core: &mut Core, seconds: u64) {
    core.rtc_advance_seconds(seconds);
}

/// Where `reconstruct` starts: the cursor's frame, the newest state, or a keyframe (index).
enum ReconstructSource {
    Cursor(u64),
    Newest,
    Keyframe(usize),
}

/// The share of a history budget kept for the logs (the snapshot ring gets the rest).
fn log_reserve(budget_bytes: usize) -> usize {
    budget_bytes / 8
}

/// Emulated seconds in `frames` LCD frames (59.7275 per second).
pub fn frames_to_seconds(frames: u64) -> f64 {
    (frames * M_CYCLES_PER_FRAME) as f64 / M_CYCLES_PER_SECOND as f64
}
