//! Running backwards: the timeline seeks to the frame end before the moment wanted and
//! re-simulates instruction by instruction, remembering instruction boundaries and hits;
//! the session then lands on the one chosen (seek again and run to its cycle). No state
//! is copied per instruction.

use crate::observed::Paused;
use crate::points::AccessKind;
use crate::session::{Boundaries, CallFrame, Session, StopReason};
use backspin_core::state::CpuMode;
use backspin_rewind::Checkpoint;

/// M-cycles between the checkpoints a step back keeps in the frame it scans (a quarter of
/// a frame): landing on an instruction re-simulates at most this far.
const CHECKPOINT_EVERY: u64 = 4096;

/// An instruction boundary found by re-simulation.
pub(crate) struct Mark {
    /// The frame whose end the re-simulation started from.
    frame: u64,
    cycle: u64,
    /// LY at the boundary.
    ly: u8,
    calls: Vec<CallFrame>,
    hit: Option<StopReason>,
}

impl Session {
    /// Seeks to the end of `frame` with the call stack known there.
    fn seek_frame(&mut self, frame: u64) -> Result<(), String> {
        self.timeline.seek(frame).map_err(|e| e.to_string())?;
        self.calls = self.calls_at_frame.get(&frame).cloned().unwrap_or_default();
        Ok(())
    }

    /// Re-simulates from the end of `frame` until `until` or the next frame end; marks
    /// every instruction boundary where the CPU runs (`all`) or only hits.
    /// With `checkpoints`, keeps one at the frame end and every `CHECKPOINT_EVERY` M-cycles
    /// after it.
    fn scan(
        &mut self,
        frame: u64,
        until: u64,
        all: bool,
        checkpoints: Option<&mut Vec<Checkpoint>>,
    ) -> Result<Vec<Mark>, String> {
        if self.observable() {
            return self.scan_span(frame, frame, until, all, checkpoints);
        }
        self.scan_stepping(frame, until, all, checkpoints)
    }

    /// Keeps a checkpoint when the last one kept is `CHECKPOINT_EVERY` M-cycles back.
    fn keep_checkpoint(&self, checkpoints: &mut Option<&mut Vec<Checkpoint>>) {
        if let Some(list) = checkpoints {
            let due = list
                .last()
                .is_none_or(|c| self.timeline.cycle() - c.cycle() >= CHECKPOINT_EVERY);
            if due {
                list.push(self.timeline.checkpoint());
            }
        }
    }

    /// Re-simulates through the core's observed run from the end of `first` while the
    /// frame is at most `last` and the cycle before `until`, marking instruction starts
    /// (`all`) or only hits. Instruction starts come from the core, and conditions are
    /// judged only at breakpoint addresses and watched writes; marks carry no LY (0).
    fn scan_span(
        &mut self,
        first: u64,
        last: u64,
        until: u64,
        all: bool,
        mut checkpoints: Option<&mut Vec<Checkpoint>>,
    ) -> Result<Vec<Mark>, String> {
        self.seek_frame(first)?;
        let mut watcher = self.watcher(all);
        let mut marks = Vec::new();
        let mut watch_hit = None;
        let mut visit = true;
        loop {
            let cycle = self.timeline.cycle();
            let frame = self.timeline.frame();
            let in_span = frame <= last;
            if visit && cycle < until {
                let running = self.timeline.core().state().cpu.mode() == CpuMode::Running;
                let hit = watch_hit.take().map(StopReason::Watchpoint).or_else(|| {
                    in_span
                        .then(|| self.breakpoint_here(false).map(StopReason::Breakpoint))
                        .flatten()
                });
                if (all && running && in_span) || hit.is_some() {
                    marks.push(Mark {
                        // A hit just after a frame end belongs to the frame before.
                        frame: frame.min(last),
                        cycle,
                        ly: 0,
                        calls: watcher.calls.clone(),
                        hit,
                    });
                }
            }
            if !in_span || cycle >= until {
                break;
            }
            let base = cycle.wrapping_sub(self.timeline.core().m_cycles());
            let mut budget = until - cycle;
            if checkpoints.is_some() {
                self.keep_checkpoint(&mut checkpoints);
                budget = budget.min(CHECKPOINT_EVERY);
            }
            let paused = self.run_observed(&mut watcher, budget);
            if let Some(starts) = watcher.starts.as_mut() {
                for (m_cycle, stack) in starts.drain(..) {
                    marks.push(Mark {
                        frame,
                        cycle: base.wrapping_add(m_cycle),
                        ly: 0,
                        calls: watcher.stacks[stack].clone(),
                        hit: None,
                    });
                }
            }
            if paused == Paused::Wrote {
                let written = std::mem::take(&mut watcher.written);
                watch_hit = self.watch_hit(&written);
            }
            visit = self.timeline.cycle() != cycle;
        }
        self.end_observed(watcher);
        Ok(marks)
    }

    /// The last hit from the end of `first` to `until` within frames up to `last`, found
    /// without drawing.
    fn last_hit(&mut self, first: u64, last: u64, until: u64) -> Result<Option<Mark>, String> {
        self.timeline.set_drawing(false);
        let marks = self.scan_span(first, last, until, false, None);
        self.timeline.set_drawing(true);
        Ok(marks?.into_iter().rev().find(|m| m.hit.is_some()))
    }

    /// `scan` one `Core::step` at a time (what the observed run cannot watch, and LY).
    fn scan_stepping(
        &mut self,
        frame: u64,
        until: u64,
        all: bool,
        mut checkpoints: Option<&mut Vec<Checkpoint>>,
    ) -> Result<Vec<Mark>, String> {
        self.seek_frame(frame)?;
        let watch = !self.watchpoints.is_empty();
        let mut marks = Vec::new();
        // A watchpoint hit belongs to the boundary after the instruction that made it.
        let mut pending_watch = None;
        while self.timeline.frame() == frame && self.timeline.cycle() < until {
            self.keep_checkpoint(&mut checkpoints);
            let cycle = self.timeline.cycle();
            let running = self.timeline.core().state().cpu.mode() == CpuMode::Running;
            let hit = pending_watch
                .take()
                .map(StopReason::Watchpoint)
                .or_else(|| self.breakpoint_here(false).map(StopReason::Breakpoint));
            if (all && running) || hit.is_some() {
                let ly = self.timeline.core().state().hw.ppu.ly;
                let calls = self.calls.clone();
                marks.push(Mark {
                    frame,
                    cycle,
                    ly,
                    calls,
                    hit,
                });
            }
            pending_watch = self.step_one(watch).watch;
        }
        if let Some(id) = pending_watch
            && self.timeline.cycle() < until
        {
            let cycle = self.timeline.cycle();
            let hit = Some(StopReason::Watchpoint(id));
            let ly = self.timeline.core().state().hw.ppu.ly;
            let calls = self.calls.clone();
            marks.push(Mark {
                frame,
                cycle,
                ly,
                calls,
                hit,
            });
        }
        Ok(marks)
    }

    /// Puts the machine at the mark's boundary after the end of `frame`: from the newest
    /// of `checkpoints` (taken on the way there) not after it, or from a seek.
    fn land(&mut self, mark: Mark, checkpoints: &[Checkpoint]) -> Result<(), String> {
        match checkpoints.iter().rev().find(|c| c.cycle() <= mark.cycle) {
            Some(checkpoint) => self.timeline.restore_checkpoint(checkpoint),
            None => {
                self.timeline.seek(mark.frame).map_err(|e| e.to_string())?;
            }
        }
        self.timeline.run_to_cycle(mark.cycle);
        self.calls = mark.calls;
        Ok(())
    }

    fn oldest_frame(&self) -> Result<u64, String> {
        if !self.timeline.rewind_enabled() {
            return Err("running backwards needs rewind history".into());
        }
        Ok(self.timeline.span().oldest)
    }

    fn land_at_oldest(&mut self) -> Result<StopReason, String> {
        let oldest = self.oldest_frame()?;
        self.seek_frame(oldest)?;
        self.boundaries = None;
        Ok(StopReason::StartOfHistory)
    }

    /// One instruction back (a halted stretch counts as part of the instruction before).
    /// The first step back into a frame re-simulates it up to now, keeping its instruction
    /// boundaries and a few checkpoints; later steps land from the nearest checkpoint.
    pub fn step_back(&mut self) -> Result<StopReason, String> {
        let now = self.timeline.cycle();
        if let Some(cached) = self.boundaries.take()
            && let Some(i) = cached.list.iter().position(|(c, _)| *c == now)
            && i > 0
        {
            let (cycle, calls) = cached.list[i - 1].clone();
            let mark = Mark {
                frame: cached.frame,
                cycle,
                ly: 0,
                calls,
                hit: None,
            };
            self.land(mark, &cached.checkpoints)?;
            self.boundaries = Some(cached);
            return Ok(StopReason::Step);
        }
        let oldest = self.oldest_frame()?;
        let mut frame = self.timeline.frame();
        loop {
            let mut checkpoints = Vec::new();
            let marks = self.scan(frame, now, true, Some(&mut checkpoints))?;
            if !marks.is_empty() {
                let list: Vec<_> = marks.into_iter().map(|m| (m.cycle, m.calls)).collect();
                let (cycle, calls) = list[list.len() - 1].clone();
                let mark = Mark {
                    frame,
                    cycle,
                    ly: 0,
                    calls,
                    hit: None,
                };
                self.land(mark, &checkpoints)?;
                self.boundaries = Some(Boundaries {
                    frame,
                    list,
                    checkpoints,
                });
                return Ok(StopReason::Step);
            }
            if frame <= oldest {
                return self.land_at_oldest();
            }
            frame -= 1;
        }
    }

    /// Back to the most recent breakpoint or watchpoint hit before now (for a write
    /// watchpoint: just after the last write to the watched bytes).
    pub fn reverse_continue(&mut self) -> Result<StopReason, String> {
        self.boundaries = None;
        let now = self.timeline.cycle();
        let oldest = self.oldest_frame()?;
        let stopping = self.breakpoints.iter().any(|b| b.log_message.is_none());
        if !stopping && self.watchpoints.is_empty() {
            return self.land_at_oldest();
        }
        if self.observable() {
            return self.reverse_continue_observed(now, oldest);
        }
        let mut frame = self.timeline.frame();
        // With only write watchpoints, a frame whose watched bytes are the same at both
        // ends is passed over without re-simulating it (see README: a write that stores
        // the value already there, or changes it and back within one frame, more than one
        // frame back is not found).
        let only_writes = self.breakpoints.iter().all(|b| b.log_message.is_some())
            && !self.watchpoints.is_empty()
            && self
                .watchpoints
                .iter()
                .all(|w| w.access == AccessKind::Write);
        let mut later: Option<Vec<u8>> = None;
        loop {
            let scan_it = match (&later, only_writes) {
                (Some(after), true) => {
                    self.seek_frame(frame)?;
                    &self.watched_bytes() != after
                }
                _ => true,
            };
            if scan_it {
                let marks = self.scan(frame, now, false, None)?;
                if let Some(mark) = marks.into_iter().rev().find(|m| m.hit.is_some()) {
                    let reason = mark.hit.unwrap_or(StopReason::Step);
                    self.land(mark, &[])?;
                    return Ok(reason);
                }
            }
            if frame <= oldest {
                return self.land_at_oldest();
            }
            if only_writes {
                self.seek_frame(frame)?;
                later = Some(self.watched_bytes());
            }
            frame -= 1;
        }
    }

    /// `reverse_continue` through the core's observed run. With only write watchpoints
    /// the stored history says which frames changed the watched bytes and only those are
    /// re-simulated (a write that stores the value already there, or changes it and back
    /// within one frame, is found only in the frame under way); otherwise spans of frames
    /// are re-simulated backwards, each twice as long as the one after it, from the end of
    /// each span's first frame.
    fn reverse_continue_observed(&mut self, now: u64, oldest: u64) -> Result<StopReason, String> {
        let present = self.timeline.frame();
        let found = self.last_hit(present, present, now)?;
        if let Some(mark) = found {
            return self.land_on_hit(mark);
        }
        let only_writes = self.breakpoints.iter().all(|b| b.log_message.is_some());
        if only_writes {
            let mut later = present;
            while let Some((changed, next)) = self.last_change_before(later)? {
                if let Some(mark) = self.last_hit(changed, next - 1, now)? {
                    return self.land_on_hit(mark);
                }
                later = changed;
            }
            return self.land_at_oldest();
        }
        let mut last = present;
        let mut span = 4u64;
        while last > oldest {
            last -= 1;
            let first = last.saturating_sub(span - 1).max(oldest);
            if let Some(mark) = self.last_hit(first, last, now)? {
                return self.land_on_hit(mark);
            }
            last = first;
            span = (span * 2).min(256);
        }
        self.land_at_oldest()
    }

    fn land_on_hit(&mut self, mark: Mark) -> Result<StopReason, String> {
        let reason = mark.hit.unwrap_or(StopReason::Step);
        self.land(mark, &[])?;
        Ok(reason)
    }

    /// The newest stored frame before `frame` at whose end the watched bytes differ from
    /// those at the end of the next stored frame (or of `frame` itself, which need not be
    /// stored), with that next frame: the change was made between them. Leaves the
    /// timeline at the end of `frame`.
    fn last_change_before(&mut self, frame: u64) -> Result<Option<(u64, u64)>, String> {
        let ranges: Vec<(u16, u16)> = self.watchpoints.iter().map(|w| (w.start, w.len)).collect();
        self.seek_frame(frame)?;
        let mut later = Some((frame, self.watched_bytes()));
        let mut scratch = self.timeline.core().clone();
        let mut found = None;
        let mut bytes = Vec::new();
        self.timeline
            .stored_states_back(frame, |stored, state| {
                scratch.load_state(state);
                bytes.clear();
                for &(start, len) in &ranges {
                    let at = bytes.len();
                    bytes.resize(at + usize::from(len), 0);
                    scratch.peek_into(start, &mut bytes[at..]);
                }
                match &mut later {
                    Some((next, after)) if *after != bytes => {
                        found = Some((stored, *next));
                        false
                    }
                    Some((next, after)) => {
                        *next = stored;
                        after.clone_from(&bytes);
                        true
                    }
                    None => {
                        later = Some((stored, bytes.clone()));
                        true
                    }
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(found)
    }

    /// Every watched byte, in watchpoint order.
    fn watched_bytes(&mut self) -> Vec<u8> {
        let ranges: Vec<(u16, u16)> = self.watchpoints.iter().map(|w| (w.start, w.len)).collect();
        let mut out = Vec::new();
        for (start, len) in ranges {
            let at = out.len();
            out.resize(at + usize::from(len), 0);
            self.timeline.peek_into(start, &mut out[at..]);
        }
        out
    }

    /// Back to the previous frame end.
    pub fn back_frame(&mut self) -> Result<StopReason, String> {
        self.boundaries = None;
        let oldest = self.oldest_frame()?;
        let now = self.timeline.cycle();
        let frame = self.timeline.frame();
        self.seek_frame(frame)?;
        if self.timeline.cycle() < now {
            return Ok(StopReason::Step);
        }
        if frame <= oldest {
            return self.land_at_oldest();
        }
        self.seek_frame(frame - 1)?;
        Ok(StopReason::Step)
    }

    /// Back to the last instruction boundary on another scanline.
    pub fn back_scanline(&mut self) -> Result<StopReason, String> {
        self.boundaries = None;
        let ly = self.timeline.core().state().hw.ppu.ly;
        let now = self.timeline.cycle();
        let oldest = self.oldest_frame()?;
        let mut frame = self.timeline.frame();
        loop {
            let marks = self.scan_stepping(frame, now, true, None)?;
            if let Some(mark) = marks.into_iter().rev().find(|m| m.ly != ly) {
                self.land(mark, &[])?;
                return Ok(StopReason::Step);
            }
            if frame <= oldest {
                return self.land_at_oldest();
            }
            frame -= 1;
        }
    }
}
