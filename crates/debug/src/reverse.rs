//! Running backwards: the timeline seeks to the frame end before the moment wanted and
//! re-simulates instruction by instruction, remembering instruction boundaries and hits;
//! the session then lands on the one chosen (seek again and run to its cycle). No state
//! is copied per instruction.

use crate::points::AccessKind;
use crate::session::{Boundary, CallFrame, Session, StopReason};
use backspin_core::state::CpuMode;

/// An instruction boundary found by re-simulation.
pub(crate) struct Mark {
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
    fn scan(&mut self, frame: u64, until: u64, all: bool) -> Result<Vec<Mark>, String> {
        self.seek_frame(frame)?;
        let watch = !self.watchpoints.is_empty();
        let mut marks = Vec::new();
        // A watchpoint hit belongs to the boundary after the instruction that made it.
        let mut pending_watch = None;
        while self.timeline.frame() == frame && self.timeline.cycle() < until {
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
                cycle,
                ly,
                calls,
                hit,
            });
        }
        Ok(marks)
    }

    /// Puts the machine at the mark's boundary after the end of `frame`.
    fn land(&mut self, frame: u64, mark: Mark) -> Result<(), String> {
        self.timeline.seek(frame).map_err(|e| e.to_string())?;
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
    pub fn step_back(&mut self) -> Result<StopReason, String> {
        let now = self.timeline.cycle();
        if let Some((frame, list)) = self.boundaries.take()
            && let Some(i) = list.iter().position(|(c, _)| *c == now)
            && i > 0
        {
            let (cycle, calls) = list[i - 1].clone();
            self.land(
                frame,
                Mark {
                    cycle,
                    ly: 0,
                    calls,
                    hit: None,
                },
            )?;
            self.boundaries = Some((frame, list));
            return Ok(StopReason::Step);
        }
        let oldest = self.oldest_frame()?;
        let mut frame = self.timeline.frame();
        loop {
            let marks = self.scan(frame, now, true)?;
            if !marks.is_empty() {
                let list: Vec<Boundary> = marks.into_iter().map(|m| (m.cycle, m.calls)).collect();
                let (cycle, calls) = list[list.len() - 1].clone();
                self.land(
                    frame,
                    Mark {
                        cycle,
                        ly: 0,
                        calls,
                        hit: None,
                    },
                )?;
                self.boundaries = Some((frame, list));
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
                let marks = self.scan(frame, now, false)?;
                if let Some(mark) = marks.into_iter().rev().find(|m| m.hit.is_some()) {
                    let reason = mark.hit.unwrap_or(StopReason::Step);
                    self.land(frame, mark)?;
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
            let marks = self.scan(frame, now, true)?;
            if let Some(mark) = marks.into_iter().rev().find(|m| m.ly != ly) {
                self.land(frame, mark)?;
                return Ok(StopReason::Step);
            }
            if frame <= oldest {
                return self.land_at_oldest();
            }
            frame -= 1;
        }
    }
}
