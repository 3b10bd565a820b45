//! A debugging session: a timeline, its labels, breakpoints, watchpoints and call stack,
//! and running forward instruction by instruction until something stops it.

use crate::access::{self, Access};
use crate::expr::Expr;
use crate::machine_view::View;
use crate::observed::Paused;
use crate::points::{Breakpoint, Watchpoint};
use crate::source_lines::SourceLines;
use crate::symbols::Symbols;
use backspin_core::Core;
use backspin_core::state::CpuMode;
use backspin_rewind::{Config, Timeline};
use std::collections::BTreeMap;

/// One entry of the call stack: a CALL, RST or interrupt dispatch not yet returned from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallFrame {
    /// Where the call was made (for an interrupt: the instruction it interrupted).
    pub call_site: u16,
    /// Where it went.
    pub target: u16,
    /// SP just after the return address was pushed: the frame is gone once SP is above it.
    pub sp: u16,
    pub interrupt: bool,
}

/// An instruction boundary: its timeline cycle and the call stack there.
pub(crate) type Boundary = (u64, Vec<CallFrame>);

/// The instruction boundaries of one frame found by a step back, with checkpoints to land
/// on them from (dropped with any change to the machine: they hold its old history).
pub(crate) struct Boundaries {
    /// The frame whose end the re-simulation started from.
    pub(crate) frame: u64,
    pub(crate) list: Vec<Boundary>,
    pub(crate) checkpoints: Vec<backspin_rewind::Checkpoint>,
}

/// The deepest call stack kept: deeper recursion drops the outermost frames.
pub(crate) const MAX_CALL_DEPTH: usize = 256;

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Just launched (stopOnEntry) or restarted.
    Entry,
    /// A step finished.
    Step,
    /// An instruction breakpoint (its id) whose condition and hit count held.
    Breakpoint(u32),
    /// A watchpoint (its id) saw an access.
    Watchpoint(u32),
    /// The client asked.
    Pause,
    /// Running backwards reached the oldest moment the history holds.
    StartOfHistory,
    /// The CPU executed an illegal opcode and is locked.
    Locked,
}

/// How to run forward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    Continue,
    /// One instruction (a halted CPU runs until it wakes).
    StepIn,
    /// One instruction, running through calls and interrupts taken inside.
    Next,
    /// To the return from the current call.
    StepOut,
    /// Until LY changes.
    Scanline,
    /// Until the next frame ends.
    Frame,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Run {
    motion: Motion,
    depth: usize,
    ly: u8,
    frame: u64,
}

/// What one instruction did that the session cares about.
pub(crate) struct Stepped {
    /// A watchpoint that saw an access, if any.
    pub watch: Option<u32>,
}

/// A debugging session over one timeline.
pub struct Session {
    pub(crate) timeline: Timeline,
    pub(crate) symbols: Symbols,
    pub(crate) source_lines: SourceLines,
    pub(crate) breakpoints: Vec<Breakpoint>,
    pub(crate) watchpoints: Vec<Watchpoint>,
    pub(crate) calls: Vec<CallFrame>,
    /// The call stack at each frame end passed, for re-simulation from there.
    pub(crate) calls_at_frame: BTreeMap<u64, Vec<CallFrame>>,
    /// Instruction boundaries of one frame found by the last backward step.
    pub(crate) boundaries: Option<Boundaries>,
    pub(crate) run: Option<Run>,
    /// Logpoint output not yet taken by the client.
    pub(crate) log: Vec<String>,
    /// Whether runs the core can watch go through its observed run (off: one `Core::step`
    /// at a time, the reference the tests compare it with).
    pub(crate) observed_runs: bool,
    next_id: u32,
}

/// The session's history stores every this many frames: storing is most of what running
/// forward costs, and going back re-simulates the frames between (a few hundred
/// microseconds; a step back keeps checkpoints so it pays that once per frame).
const CAPTURE_EVERY: u32 = 4;

/// How much rewind history a session keeps: with the default it holds well over ten
/// emulated minutes of a typical game.
pub const DEFAULT_HISTORY_BYTES: usize = 256 << 20;

impl Session {
    /// A session over `core` with `history_bytes` of rewind history.
    pub fn new(mut core: Core, symbols: Symbols, history_bytes: usize) -> Session {
        // Nobody hears a debugging session: the APU keeps its state but makes no samples
        // (the emulation is the same either way).
        let mut fast = core.fast_paths();
        fast.audio_synthesis = false;
        core.set_fast_paths(fast);
        let config = Config {
            capture_every: CAPTURE_EVERY,
            ..Config::new(history_bytes)
        };
        let mut timeline = Timeline::with_config(core, config);
        timeline.set_drawing(true);
        Session::attach(timeline, symbols)
    }

    /// A session over a timeline already playing (a window's, which a debugger attaches
    /// to): its history and settings stay as they are.
    pub fn attach(timeline: Timeline, symbols: Symbols) -> Session {
        let mut session = Session {
            timeline,
            symbols,
            source_lines: SourceLines::default(),
            breakpoints: Vec::new(),
            watchpoints: Vec::new(),
            calls: Vec::new(),
            calls_at_frame: BTreeMap::new(),
            boundaries: None,
            run: None,
            log: Vec::new(),
            observed_runs: true,
            next_id: 1,
        };
        // The calls made before attaching are unknown: the stack starts empty here.
        let frame = session.timeline.frame();
        session.calls_at_frame.insert(frame, Vec::new());
        session
    }

    /// Ends the session, handing the timeline back (to the window it was attached to).
    pub fn into_timeline(self) -> Timeline {
        self.timeline
    }

    /// Exchanges the session's timeline with `other` (a window lends it out to show its
    /// picture between requests); swap back before the session is used again.
    pub fn swap_timeline(&mut self, other: &mut Timeline) {
        std::mem::swap(&mut self.timeline, other);
    }

    /// The buttons held from now on, as a timeline input (a player's, while attached).
    pub fn set_buttons(&mut self, buttons: u8) {
        if self.timeline.buttons() != buttons {
            self.timeline.set_buttons(buttons);
            self.forget_future();
        }
    }

    /// The timeline (read-only: changes go through the session so its caches stay right).
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Reads memory without side effects.
    pub fn peek(&mut self, addr: u16) -> u8 {
        self.timeline.peek(addr)
    }

    /// Fills `out` from `start` on without side effects (addresses wrap).
    pub fn peek_into(&mut self, start: u16, out: &mut [u8]) {
        self.timeline.peek_into(start, out);
    }

    /// The labels.
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// Source lines (from our assembler's line table) for breakpoints by file and line.
    pub fn set_source_lines(&mut self, lines: SourceLines) {
        self.source_lines = lines;
    }

    /// The source lines (empty without a line table).
    pub fn source_lines(&self) -> &SourceLines {
        &self.source_lines
    }

    /// The call stack, outermost first.
    pub fn calls(&self) -> &[CallFrame] {
        &self.calls
    }

    /// Runs one `Core::step` at a time even where the core's observed run could watch
    /// (`false`): the reference path, for tests and benches.
    #[doc(hidden)]
    pub fn set_observed_runs(&mut self, on: bool) {
        self.observed_runs = on;
        self.boundaries = None;
    }

    /// Logpoint messages printed since the last call.
    pub fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    pub(crate) fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// An expression context over the present machine.
    pub(crate) fn view(&mut self, value: Option<u8>) -> View<'_> {
        View {
            timeline: &mut self.timeline,
            symbols: &self.symbols,
            value,
        }
    }

    /// Parses an expression and checks its names.
    pub fn parse_expr(&mut self, text: &str) -> Result<Expr, String> {
        let expr = Expr::parse(text)?;
        expr.check_names(&self.view(None))?;
        Ok(expr)
    }

    /// Evaluates an expression now.
    pub fn evaluate(&mut self, text: &str) -> Result<i64, String> {
        let expr = self.parse_expr(text)?;
        expr.eval(&mut self.view(None))
    }

    /// Forgets what depends on the future (after a change to the machine: the future
    /// forks).
    pub(crate) fn forget_future(&mut self) {
        self.boundaries = None;
        let frame = self.timeline.frame();
        self.calls_at_frame.split_off(&(frame + 1));
    }

    /// Executes one CPU step, keeping the call stack and looking for watchpoint hits.
    pub(crate) fn step_one(&mut self, watch: bool) -> Stepped {
        let before = self.timeline.core().state().cpu;
        let running = before.mode() == CpuMode::Running;
        // The instruction's bytes cost a peek: read only when watchpoints need decoding.
        let mut bytes = [0u8; 3];
        if watch {
            self.timeline.peek_into(before.pc, &mut bytes);
        }
        let accesses = if running && watch {
            access::decode(&before, bytes)
        } else {
            access::Accesses::default()
        };
        // Value-change detection catches what decoding cannot: DMA and HDMA writes.
        let mut old = [0u8; 8];
        let watch_values = watch
            && self
                .watchpoints
                .iter()
                .any(|w| w.access != crate::points::AccessKind::Read);
        if watch_values {
            self.snapshot_watched(&mut old);
        }
        let frame = self.timeline.frame();
        self.timeline.step_instruction();
        let after = self.timeline.core().state().cpu;
        let mut dispatch = None;
        // Two bytes pushed and a jump: a CALL, an RST or an interrupt dispatch (a PUSH goes
        // on to the next byte). Without the opcode, a CALL to a vector reads as an interrupt.
        if after.sp == before.sp.wrapping_sub(2) && after.pc != before.pc.wrapping_add(1) {
            let vector = matches!(after.pc, 0x40 | 0x48 | 0x50 | 0x58 | 0x60);
            let interrupt = vector && !(running && watch && access::is_call(bytes[0]));
            {
                if interrupt {
                    dispatch = Some(after.sp);
                }
                if self.calls.len() == MAX_CALL_DEPTH {
                    self.calls.remove(0);
                }
                self.calls.push(CallFrame {
                    call_site: before.pc,
                    target: after.pc,
                    sp: after.sp,
                    interrupt,
                });
            }
        }
        while self.calls.last().is_some_and(|f| f.sp < after.sp) {
            self.calls.pop();
        }
        if self.timeline.frame() != frame {
            self.calls_at_frame
                .insert(self.timeline.frame(), self.calls.clone());
        }
        if !watch || self.watchpoints.is_empty() {
            return Stepped { watch: None };
        }
        let pushes = dispatch.into_iter().flat_map(|sp| {
            [
                Access {
                    addr: sp.wrapping_add(1),
                    write: true,
                },
                Access {
                    addr: sp,
                    write: true,
                },
            ]
        });
        let all: Vec<Access> = accesses.iter().chain(pushes).collect();
        let mut new = [0u8; 8];
        if watch_values {
            self.snapshot_watched(&mut new);
        }
        for index in 0..self.watchpoints.len() {
            let w = &self.watchpoints[index];
            let decoded = all
                .iter()
                .find(|a| w.covers(a.addr) && w.access.matches(a.write))
                .map(|a| a.addr);
            let changed = (w.access != crate::points::AccessKind::Read
                && index < 8
                && old[index] != new[index])
                .then_some(w.start);
            let Some(addr) = decoded.or(changed) else {
                continue;
            };
            let (id, condition) = (w.id, w.condition.clone());
            let holds = match condition {
                None => true,
                Some(expr) => {
                    let value = self.timeline.peek(addr);
                    expr.eval(&mut self.view(Some(value))).is_ok_and(|v| v != 0)
                }
            };
            if holds {
                return Stepped { watch: Some(id) };
            }
        }
        Stepped { watch: None }
    }

    /// The first byte of each of the first eight watchpoints, XORed over its range (a
    /// change of any byte of a short range shows).
    fn snapshot_watched(&mut self, out: &mut [u8; 8]) {
        for (slot, w) in out.iter_mut().zip(self.watchpoints.iter()) {
            let mut acc = 0u8;
            let len = w.len.min(16);
            for i in 0..len {
                // Rotating keeps two equal changes in different bytes from cancelling.
                acc = acc.rotate_left(1) ^ self.timeline.peek(w.start.wrapping_add(i));
            }
            *slot = acc;
        }
    }

    /// The enabled breakpoint at the present instruction whose condition holds (without
    /// counting a hit when `count` is false: re-simulation must not count twice).
    pub(crate) fn breakpoint_here(&mut self, count: bool) -> Option<u32> {
        let cpu = self.timeline.core().state().cpu;
        if cpu.mode() != CpuMode::Running || self.breakpoints.is_empty() {
            return None;
        }
        let bank = self.timeline.core().rom_bank_at(cpu.pc);
        for index in 0..self.breakpoints.len() {
            let bp = &self.breakpoints[index];
            if bp.addr != cpu.pc || bp.bank.is_some_and(|b| bank.is_some_and(|at| at != b)) {
                continue;
            }
            let condition = bp.condition.clone();
            if let Some(expr) = condition
                && !expr.eval(&mut self.view(None)).is_ok_and(|v| v != 0)
            {
                continue;
            }
            if !count {
                if self.breakpoints[index].log_message.is_none() {
                    return Some(self.breakpoints[index].id);
                }
                continue;
            }
            self.breakpoints[index].hits += 1;
            let bp = self.breakpoints[index].clone();
            if bp.hit_condition.is_some_and(|h| !h.stops(bp.hits)) {
                continue;
            }
            if let Some(message) = &bp.log_message {
                let line = self.format_log(message);
                self.log.push(line);
                continue;
            }
            return Some(bp.id);
        }
        None
    }

    /// A logpoint's message with each `{expr}` replaced by its value (in hex) or error.
    pub fn format_log(&mut self, message: &str) -> String {
        let mut out = String::new();
        let mut rest = message;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                out.push_str(&rest[open..]);
                rest = "";
                break;
            };
            let text = &rest[open + 1..open + close];
            match self.evaluate(text) {
                Ok(v) => out.push_str(&format!("${v:X}")),
                Err(e) => out.push_str(&format!("<{e}>")),
            }
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// Starts running forward (see [`Session::advance`]).
    pub fn start(&mut self, motion: Motion) {
        let state = self.timeline.core().state();
        self.run = Some(Run {
            motion,
            depth: self.calls.len(),
            ly: state.hw.ppu.ly,
            frame: self.timeline.frame(),
        });
    }

    /// Whether a run is under way.
    pub fn running(&self) -> bool {
        self.run.is_some()
    }

    /// Stops a run under way.
    pub fn pause(&mut self) -> StopReason {
        self.run = None;
        StopReason::Pause
    }

    /// Runs at most `budget` instructions of the run under way; Some when it stopped.
    pub fn advance(&mut self, budget: u64) -> Option<StopReason> {
        let run = self.run?;
        let observed_motion = matches!(
            run.motion,
            Motion::Continue | Motion::Next | Motion::StepOut
        );
        if observed_motion && self.observable() {
            return self.advance_observed(run, budget);
        }
        let watch = !self.watchpoints.is_empty();
        for _ in 0..budget {
            let stepped = self.step_one(watch);
            let stop = self.stop_after_step(run, stepped);
            if stop.is_some() {
                self.run = None;
                self.boundaries = None;
                return stop;
            }
        }
        None
    }

    /// `advance` for a continue, step over or step out the core's observed run can watch:
    /// the core stops only at breakpoint addresses, watched writes and (stepping) where the
    /// call stack is back to the depth wanted; conditions and hit counts are judged there.
    fn advance_observed(&mut self, run: Run, budget: u64) -> Option<StopReason> {
        // An instruction takes one to six M-cycles, about two on average.
        let mut left = budget.saturating_mul(2).max(1);
        let mut watcher = self.watcher(false);
        watcher.until_depth = match run.motion {
            Motion::Next => Some(run.depth),
            // Out of the outermost frame there is nowhere to return to: a continue.
            Motion::StepOut => run.depth.checked_sub(1),
            _ => None,
        };
        let stop = loop {
            let start = self.timeline.cycle();
            let paused = self.run_observed(&mut watcher, left);
            let ran = self.timeline.cycle().wrapping_sub(start);
            left = left.saturating_sub(ran);
            if paused == Paused::Wrote {
                let written = std::mem::take(&mut watcher.written);
                if let Some(id) = self.watch_hit(&written) {
                    break Some(StopReason::Watchpoint(id));
                }
            }
            // The run's first instruction start is not reported (it was judged already):
            // the one it stopped at is judged here unless no time passed.
            if ran != 0
                && let Some(id) = self.breakpoint_here(true)
            {
                break Some(StopReason::Breakpoint(id));
            }
            if self.timeline.core().state().cpu.mode() == CpuMode::Locked {
                break Some(StopReason::Locked);
            }
            if watcher.returned {
                break Some(StopReason::Step);
            }
            if left == 0 || ran == 0 {
                break None;
            }
        };
        self.end_observed(watcher);
        if stop.is_some() {
            self.run = None;
            self.boundaries = None;
        }
        stop
    }

    fn stop_after_step(&mut self, run: Run, stepped: Stepped) -> Option<StopReason> {
        if let Some(id) = stepped.watch {
            return Some(StopReason::Watchpoint(id));
        }
        if let Some(id) = self.breakpoint_here(true) {
            return Some(StopReason::Breakpoint(id));
        }
        let state = self.timeline.core().state();
        let mode = state.cpu.mode();
        if mode == CpuMode::Locked {
            return Some(StopReason::Locked);
        }
        let at_instruction = mode == CpuMode::Running;
        let done = match run.motion {
            Motion::Continue => false,
            Motion::StepIn => at_instruction,
            Motion::Next => at_instruction && self.calls.len() <= run.depth,
            Motion::StepOut => at_instruction && self.calls.len() < run.depth,
            Motion::Scanline => state.hw.ppu.ly != run.ly,
            Motion::Frame => self.timeline.frame() != run.frame,
        };
        done.then_some(StopReason::Step)
    }

    /// Runs `frames` whole frames at full speed, seeing no breakpoint or watchpoint (the
    /// call stack is not followed: benches and tools that need history first).
    #[doc(hidden)]
    pub fn run_frames_unobserved(&mut self, frames: u64) {
        self.run = None;
        self.boundaries = None;
        for _ in 0..frames {
            self.timeline.run_frame();
            self.calls_at_frame
                .insert(self.timeline.frame(), self.calls.clone());
        }
    }

    /// Runs `motion` to its end (tests and benches: a continue without a breakpoint ahead
    /// never ends).
    pub fn run_to_stop(&mut self, motion: Motion) -> StopReason {
        self.start(motion);
        loop {
            if let Some(stop) = self.advance(100_000) {
                return stop;
            }
        }
    }
}
