//! [`Rewinder`]: the public face of the crate. Captures snapshots into the ring, logs inputs,
//! seeks (with or without re-simulating on a [`Core`]), steps back and forward, and forks
//! the timeline when the player's input departs from the logged future. Storing
//! (`storage.rs`), seeking (`seek.rs`) and re-simulation (`resimulate.rs`) are its parts;
//! the logs it replays are `crate::logs`.

use crate::codec::{DecodeError, Decoder, Encoder, ZeroBlocks};
use crate::input_log::InputLog;
use crate::logs::LoggedWrite;
pub(crate) use crate::logs::{EVENT_KINDS, EventKind, MemoryWrite, ResetMark};
use crate::logs::{Logs, RESET_LOG_MAX, RTC_LOG_MAX};
use crate::ring::Ring;
use backspin_core::{Events, M_CYCLES_PER_FRAME, M_CYCLES_PER_SECOND, State, WrittenPages};

mod history_file;
mod resimulate;
mod seek;
mod storage;

pub use history_file::HistoryError;

const STATE_LEN: usize = size_of::<State>();

/// How the rewinder stores history.
#[derive(Clone, Debug)]
pub struct Config {
    /// Bytes for the snapshot ring (records + index). Allocated once.
    pub budget_bytes: usize,
    /// Store every `capture_every`-th frame (1 = every frame). Frames in between are
    /// re-simulated from the input log on seek: 4 gives roughly 3× the history for about
    /// four frames of emulation per seek. The default, 2, halves what storing costs a
    /// frame of play, for at most one more frame of emulation per seek or step.
    pub capture_every: u32,
    /// A keyframe (a whole state) every this many stored snapshots, so a seek never
    /// applies more than about half this many patches.
    pub keyframe_interval: u32,
    /// ... or sooner, once the deltas since the last keyframe exceed this many bytes, which
    /// bounds seek time in bytes: a game with small deltas gets long groups (keyframes and
    /// their tables cost less, codes are learned from more frames), one that churns a lot
    /// gets short ones. The defaults were chosen by measurement (`docs/rewind.md`).
    pub keyframe_chain_bytes: usize,
}

impl Config {
    /// The default settings with a history of at most `budget_bytes`.
    pub fn new(budget_bytes: usize) -> Config {
        Config {
            budget_bytes,
            capture_every: 2,
            keyframe_interval: 1200,
            keyframe_chain_bytes: 64 * 1024,
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
    /// Buttons, clock, resets and loads, memory writes.
    logs: Logs,
    /// Uncompressed copy of the newest stored state: a capture is one pass against it.
    newest: Box<State>,
    /// Which blocks of `newest` are known zero (`Rewinder::newest_replaced` after any
    /// change but a capture's, which keeps it).
    newest_zeros: ZeroBlocks,
    /// Tracked pages (`backspin_core::written_pages`) in which `newest` may differ from
    /// the state last offered to `capture`, beyond what the core wrote since (all of them
    /// unless that state was stored as `newest` or skipped right after it).
    unsynced: WrittenPages,
    /// A scratch state that seeks rebuild into, and the stored frame it holds.
    cursor: Box<State>,
    cursor_frame: Option<u64>,
    /// Frame of the oldest keyframe in the ring: history starts there, since the deltas
    /// before it may need the Huffman code of a keyframe that was overwritten.
    first_key_frame: Option<u64>,
    /// The frame the caller is at: the last frame captured, replayed or sought to.
    present: Option<u64>,
    /// The newest frame played along the logged inputs, while it lies past the newest stored
    /// frame (between capture points): seeking back leaves it reachable by re-simulation.
    head: Option<u64>,
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
            ring: Ring::new(config.budget_bytes - storage::log_reserve(config.budget_bytes)),
            encoder: Encoder::new(STATE_LEN),
            decoder: Decoder::new(STATE_LEN),
            logs: Logs::new(),
            newest: bytemuck::zeroed_box(),
            newest_zeros: ZeroBlocks::NONE,
            unsynced: WrittenPages::ALL,
            cursor: bytemuck::zeroed_box(),
            cursor_frame: None,
            first_key_frame: None,
            present: None,
            head: None,
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
        self.logs.clear();
        self.unsynced = WrittenPages::ALL;
        self.first_key_frame = None;
        self.decoder.forget_meta();
        self.cursor_frame = None;
        self.present = None;
        self.head = None;
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
        &self.logs.buttons
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
        stats.input_events = self.logs.buttons.len();
        stats.input_log_bytes = self.logs.buttons.memory_bytes();
        stats
    }

    /// Logs `buttons` as held from timeline cycle `cycle` on. While a recorded future exists
    /// beyond the present frame (after a seek), matching input keeps it; the first differing
    /// input forks: snapshots after the present frame and inputs from `cycle` on are dropped.
    ///
    /// Timeline cycles are the core's M-cycles plus the offset of the latest reset (see
    /// [`crate::Timeline`], which stamps and applies inputs for a frontend).
    #[inline]
    pub fn record_input(&mut self, cycle: u64, buttons: u8) {
        if self.has_future() {
            self.record_input_in_future(cycle, buttons);
            return;
        }
        self.logs
            .buttons
            .push(cycle, buttons, self.present.unwrap_or(0));
    }

    /// `record_input` while a recorded future exists (out of line: play without one is the
    /// path every frame takes).
    #[cold]
    #[inline(never)]
    fn record_input_in_future(&mut self, cycle: u64, buttons: u8) {
        if self.logs.buttons.buttons_at(cycle).unwrap_or(0) == buttons {
            return;
        }
        self.fork_logs_at(cycle, EventKind::Buttons);
        self.logs
            .buttons
            .push(cycle, buttons, self.present.unwrap_or(0));
    }

    /// Logs that `seconds` of host time were added to the cartridge clock at timeline cycle
    /// `cycle`. While a recorded future exists, the same event at the same cycle keeps it;
    /// any other forks the timeline, as a differing button press does.
    pub fn record_rtc_advance(&mut self, cycle: u64, seconds: u64) {
        if self.has_future() {
            if self.logs.rtc.contains(&(cycle, seconds)) {
                return;
            }
            self.fork_logs_at(cycle, EventKind::Rtc);
        }
        self.logs.rtc.retain(|&(c, _)| c < cycle);
        if self.logs.rtc.len() >= RTC_LOG_MAX {
            self.logs.rtc.remove(0);
        }
        self.logs.rtc.push((cycle, seconds));
    }

    /// Logs a reset at timeline cycle `cycle`, during frame `frame` (the one about to run),
    /// after which the core's M-cycle 0 is timeline cycle `base`. Forks like any input
    /// unless the recorded future holds the same reset.
    ///
    /// A state load is logged the same way (`mark.loaded`): several marks may share a cycle
    /// (a load, then a reset before the next frame) and apply in the order made.
    pub(crate) fn record_reset(&mut self, mark: ResetMark) {
        if self.has_future() {
            if self.logs.resets.iter().any(|r| r.same_as(&mark)) {
                return;
            }
            self.fork_logs_at(mark.cycle, EventKind::Reset);
        }
        self.keyframe_due |= mark.loaded.is_some();
        self.logs.resets.retain(|r| r.cycle <= mark.cycle);
        if self.logs.resets.len() >= RESET_LOG_MAX {
            self.logs.resets.remove(0);
        }
        self.logs.resets.push(mark);
    }

    /// Logs `write`, made after the writes this run already made at its cycle. While a
    /// recorded future exists, the same write in the same place keeps it; any other forks
    /// the timeline, as a differing button press does. Writes logged at that cycle beyond
    /// it are dropped: they belong to a run this one replaced.
    pub(crate) fn record_write(&mut self, write: MemoryWrite) {
        let nth = self.logs.writes_made_at(write.cycle);
        self.logs.writes_made = (write.cycle, nth + 1);
        let first = self
            .logs
            .writes
            .partition_point(|w| w.write.cycle < write.cycle);
        if self.has_future() {
            if self
                .logs
                .writes
                .get(first + nth)
                .is_some_and(|logged| logged.write == write)
            {
                return;
            }
            self.fork_logs_at(write.cycle, EventKind::Write);
        }
        self.logs.writes.truncate(first + nth);
        self.logs.writes.push(LoggedWrite {
            write,
            frame: self.present.unwrap_or(0),
        });
    }

    /// Drops writes logged at `cycle` that this run did not make (it went on past them):
    /// a fork when they are part of a recorded future.
    #[inline]
    pub(crate) fn drop_writes_not_made(&mut self, cycle: u64) {
        // Every frame asks; nearly always no write is logged at all.
        if self.logs.writes.is_empty() {
            return;
        }
        self.drop_logged_writes_not_made(cycle);
    }

    /// `drop_writes_not_made` with writes logged.
    #[cold]
    #[inline(never)]
    fn drop_logged_writes_not_made(&mut self, cycle: u64) {
        let made = self.logs.writes_made_at(cycle);
        if self.logs.writes_at(cycle).nth(made).is_none() {
            return;
        }
        if self.has_future() {
            self.fork_logs_at(cycle, EventKind::Write);
        } else {
            let first = self.logs.writes.partition_point(|w| w.write.cycle < cycle);
            self.logs.writes.truncate(first + made);
        }
    }

    /// Drops the writes this run made at timeline cycle `cycle`: a state load there
    /// replaces the whole machine, so they no longer change anything, and re-simulation
    /// (which applies a cycle's writes after its loads) must not make them after it. A fork
    /// when they are part of a recorded future.
    pub(crate) fn drop_writes_made_at(&mut self, cycle: u64) {
        let made = self.logs.writes_made_at(cycle);
        if made == 0 {
            return;
        }
        if self.has_future() {
            self.fork_logs_at(cycle, EventKind::Write);
        }
        let first = self.logs.writes.partition_point(|w| w.write.cycle < cycle);
        let end = (first + made).min(self.logs.writes.len());
        self.logs.writes.drain(first..end);
        self.logs.writes_made = (cycle, 0);
    }

    /// The logged memory writes, oldest first.
    pub fn write_log(&self) -> impl Iterator<Item = MemoryWrite> + '_ {
        self.logs.writes.iter().map(|w| w.write)
    }

    /// Drops the states held by every logged load but the latest: with history off nothing
    /// can be re-simulated, and only the latest mark's `base` is still needed. Marks a
    /// pinned log still needs stay.
    pub(crate) fn forget_loaded_states(&mut self) {
        let mut keep = self.logs.resets.len().saturating_sub(1);
        if let Some(pin) = self.logs_pinned_from {
            keep = keep.min(self.logs.resets.partition_point(|r| r.frame < pin));
        }
        self.logs.resets.drain(..keep);
    }

    /// Keeps every logged input (buttons, clock, resets) from timeline frame `frame` on,
    /// whatever history the budget evicts, until called with `None`: a movie recorded from
    /// that frame is written from these logs. The logs of a long recording are small (8
    /// bytes a button change); history is still evicted as usual. The reset and clock logs
    /// keep their caps of 4,096 entries each.
    pub fn pin_logs_from(&mut self, frame: Option<u64>) {
        self.logs_pinned_from = frame;
    }

    /// The logged state loads, oldest first: (timeline cycle, timeline frame).
    pub fn load_log(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.logs
            .resets
            .iter()
            .filter(|r| r.loaded.is_some())
            .map(|r| (r.cycle, r.frame))
    }

    /// The newest frame of the branch played: the newest stored one, or the frame played
    /// past it (between capture points).
    fn branch_end(&self) -> Option<u64> {
        Some(self.newest_frame()?.max(self.head.unwrap_or(0)))
    }

    /// The newest frame a seek can reach: the branch's end, or the present.
    pub fn newest_reachable(&self) -> Option<u64> {
        Some(self.branch_end()?.max(self.present.unwrap_or(0)))
    }

    /// Whether frames lie beyond the present one (a recorded future, after a seek).
    pub fn has_future(&self) -> bool {
        let present = self.present.unwrap_or(0);
        self.branch_end().is_some_and(|end| end > present)
    }

    /// Drops the inputs logged after timeline cycle `cycle` (a frame left unfinished), if
    /// any.
    pub(crate) fn forget_inputs_after(&mut self, cycle: u64) {
        let after = [
            EventKind::Reset,
            EventKind::Rtc,
            EventKind::Buttons,
            EventKind::Write,
        ]
        .into_iter()
        .any(|kind| self.logs.last_cycle(kind).is_some_and(|c| c > cycle));
        if after {
            self.logs.truncate_from(cycle + 1);
        }
    }

    /// Whether a reset, clock advance or button change of a kind `made` does not mark is
    /// logged at timeline cycle `cycle`, the present's, while no future is recorded: then
    /// nothing is logged later, so the last of each log tells (play asks every frame).
    pub(crate) fn logs_unmade_at(&self, cycle: u64, made: &[bool; EVENT_KINDS]) -> bool {
        [EventKind::Reset, EventKind::Rtc, EventKind::Buttons]
            .into_iter()
            .any(|kind| !made[kind as usize] && self.logs.last_cycle(kind) == Some(cycle))
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
        self.logs.buttons.truncate_from(from(EventKind::Buttons));
        self.logs.rtc.retain(|&(c, _)| c < from(EventKind::Rtc));
        self.logs
            .resets
            .retain(|r| r.cycle < from(EventKind::Reset));
        let before = self.logs.writes.partition_point(|w| w.write.cycle < cycle);
        let through = self.logs.writes.partition_point(|w| w.write.cycle <= cycle);
        self.logs
            .writes
            .truncate((before + self.logs.writes_made_at(cycle)).min(through));
    }

    /// The logged host-time events for cartridge clocks, oldest first: (timeline cycle,
    /// seconds).
    pub fn rtc_log(&self) -> &[(u64, u64)] {
        &self.logs.rtc
    }

    /// The logged resets, oldest first: (timeline cycle, timeline frame).
    pub fn reset_log(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.logs
            .resets
            .iter()
            .filter(|r| r.loaded.is_none())
            .map(|r| (r.cycle, r.frame))
    }

    /// How many writes this run made at timeline cycle `cycle` (since the last seek).
    pub(crate) fn writes_made_at(&self, cycle: u64) -> usize {
        self.logs.writes_made_at(cycle)
    }

    /// The writes logged at exactly timeline cycle `cycle`, in the order made.
    pub(crate) fn writes_at(&self, cycle: u64) -> impl Iterator<Item = MemoryWrite> + '_ {
        self.logs.writes_at(cycle)
    }

    /// Drops the logged writes made before `frame` (with history off nothing re-simulates,
    /// so only the writes of the frame in progress matter).
    pub(crate) fn forget_writes_before(&mut self, frame: u64) {
        self.logs.forget_writes_before(frame);
    }

    /// Which kinds of input the logs hold at exactly timeline cycle `cycle`.
    pub(crate) fn logged_at(&self, cycle: u64) -> [bool; EVENT_KINDS] {
        self.logs.logged_at(cycle)
    }

    /// The timeline cycle at which the states of `frame` count M-cycle 0 (the latest reset
    /// during or before that frame; 0 before any).
    pub fn cycle_base(&self, frame: u64) -> u64 {
        self.logs.cycle_base(frame)
    }

    /// The present frame is `frame` (a frontend that runs frames without storing them,
    /// e.g. with rewind off, keeps the logs' frame stamps current with this).
    pub(crate) fn set_present(&mut self, frame: u64) {
        self.present = Some(frame);
    }

    /// Makes `frame` the present as a seek there does, for a core put back some other way
    /// (a timeline checkpoint): no write counts as made at the present cycle.
    pub(crate) fn arrive_at(&mut self, frame: u64) {
        self.present = Some(frame);
        self.logs.writes_made = (0, 0);
    }

    /// Puts back a present frame read with [`Rewinder::present_frame`].
    pub(crate) fn restore_present(&mut self, present: Option<u64>) {
        self.present = present;
    }
}

/// Emulated seconds in `frames` LCD frames (59.7275 per second).
pub fn frames_to_seconds(frames: u64) -> f64 {
    (frames * M_CYCLES_PER_FRAME) as f64 / M_CYCLES_PER_SECOND as f64
}
