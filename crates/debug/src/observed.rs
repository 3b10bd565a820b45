//! Running through the core's observed run ([`Core::run_observed`]) instead of one
//! `Core::step` at a time: the core reports instruction starts at breakpoint addresses and
//! CPU writes to watched bytes, and the session judges conditions and hit counts only there.
//!
//! It serves every write-only watchpoint outside video memory and OAM (those are also
//! written by OAM DMA and HDMA, which only the step-by-step path's value comparison sees)
//! and no read watchpoint (the core reports writes only).

use crate::points::AccessKind;
use crate::session::{CallFrame, MAX_CALL_DEPTH, Session};
use backspin_core::StepObserver;
use backspin_core::state::{CpuMode, CpuState};

/// Why an observed run returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paused {
    /// Before an instruction at a breakpoint's address.
    AtBreakpointAddress,
    /// After a step that wrote watched bytes (`Watcher::written`).
    Wrote,
    /// The frame ended, the cycle limit passed, the CPU executed `LD B,B` or locked, or
    /// the call stack got back to `Watcher::until_depth` (see `Watcher::returned`).
    Other,
}

/// The session's side of an observed run.
pub(crate) struct Watcher {
    addresses: Vec<u16>,
    ranges: Vec<(u16, u16)>,
    pub(crate) calls: Vec<CallFrame>,
    /// Watched addresses written by the last step (an instruction writes at most two).
    pub(crate) written: Vec<u16>,
    at_address: bool,
    /// With `Some`, every instruction start the run passes without stopping: its core
    /// M-cycle and an index into `stacks`, the call stack there.
    pub(crate) starts: Option<Vec<(u64, usize)>>,
    pub(crate) stacks: Vec<Vec<CallFrame>>,
    calls_changed: bool,
    /// With `Some(depth)`, the run stops after a step that leaves at most `depth` calls
    /// with the CPU at an instruction.
    pub(crate) until_depth: Option<usize>,
    /// Whether the last run stopped for `until_depth` (it may have written watched bytes
    /// in the same step, so `Paused` can say `Wrote` instead).
    pub(crate) returned: bool,
}

impl Watcher {
    fn new(session: &mut Session, record_starts: bool) -> Watcher {
        let mut addresses: Vec<u16> = session.breakpoints.iter().map(|b| b.addr).collect();
        addresses.sort_unstable();
        addresses.dedup();
        let ranges = session
            .watchpoints
            .iter()
            .filter(|w| w.access != AccessKind::Read)
            .map(|w| (w.start, w.len))
            .collect();
        Watcher {
            addresses,
            ranges,
            calls: std::mem::take(&mut session.calls),
            written: Vec::new(),
            at_address: false,
            starts: record_starts.then(Vec::new),
            stacks: Vec::new(),
            calls_changed: true,
            until_depth: None,
            returned: false,
        }
    }

    fn stack_index(&mut self) -> usize {
        if self.calls_changed || self.stacks.is_empty() {
            self.stacks.push(self.calls.clone());
            self.calls_changed = false;
        }
        self.stacks.len() - 1
    }

    /// Records the present instruction start (with `starts` on).
    pub(crate) fn record_start(&mut self, m_cycle: u64) {
        if self.starts.is_some() {
            let index = self.stack_index();
            if let Some(starts) = &mut self.starts {
                starts.push((m_cycle, index));
            }
        }
    }
}

impl StepObserver for Watcher {
    fn stop_before(&mut self, cpu: &CpuState, m_cycle: u64) -> bool {
        if cpu.mode() != CpuMode::Running {
            return false;
        }
        if self.addresses.binary_search(&cpu.pc).is_ok() {
            self.at_address = true;
            return true;
        }
        self.record_start(m_cycle);
        false
    }

    fn may_skip_loop_at(&mut self, pc: u16) -> bool {
        // A polling loop is a few bytes around `pc`: skip it unless a breakpoint may lie in
        // it, or every instruction start is wanted.
        const NEAR: u16 = 16;
        self.starts.is_none()
            && !self
                .addresses
                .iter()
                .any(|&a| a.wrapping_sub(pc.wrapping_sub(NEAR)) <= 2 * NEAR)
    }

    fn write(&mut self, addr: u16, _value: u8) -> bool {
        // Echo RAM writes work RAM: a watchpoint on either sees both.
        let echo = match addr {
            0xC000..=0xDDFF => addr + 0x2000,
            0xE000..=0xFDFF => addr - 0x2000,
            _ => addr,
        };
        let watched = |a: u16| {
            self.ranges
                .iter()
                .any(|&(start, len)| a.wrapping_sub(start) < len)
        };
        let hit = if watched(addr) {
            addr
        } else if watched(echo) {
            echo
        } else {
            return false;
        };
        self.written.push(hit);
        true
    }

    fn after_step(&mut self, before: &CpuState, after: &CpuState, interrupt: bool) -> bool {
        // Two bytes pushed and a jump: a CALL, an RST or an interrupt dispatch (a PUSH goes
        // on to the next byte).
        if after.sp == before.sp.wrapping_sub(2) && after.pc != before.pc.wrapping_add(1) {
            if self.calls.len() == MAX_CALL_DEPTH {
                self.calls.remove(0);
            }
            self.calls.push(CallFrame {
                call_site: before.pc,
                target: after.pc,
                sp: after.sp,
                interrupt,
            });
            self.calls_changed = true;
        }
        while self.calls.last().is_some_and(|f| f.sp < after.sp) {
            self.calls.pop();
            self.calls_changed = true;
        }
        self.returned = self
            .until_depth
            .is_some_and(|depth| self.calls.len() <= depth && after.mode() == CpuMode::Running);
        self.returned
    }
}

impl Session {
    /// Whether the observed run sees every access the watchpoints ask for.
    pub(crate) fn observable(&self) -> bool {
        self.observed_runs
            && self.watchpoints.iter().all(|w| {
                w.access == AccessKind::Write
                    && !(0x8000..0xA000).chain(0xFE00..0xFEA0).any(|a| w.covers(a))
            })
    }

    pub(crate) fn watcher(&mut self, record_starts: bool) -> Watcher {
        Watcher::new(self, record_starts)
    }

    /// Runs observed for at most `max_m_cycles` within the present frame; the call stack
    /// stays in `watcher` (give it back with [`Session::end_observed`]).
    pub(crate) fn run_observed(&mut self, watcher: &mut Watcher, max_m_cycles: u64) -> Paused {
        watcher.written.clear();
        watcher.at_address = false;
        watcher.returned = false;
        let frame = self.timeline.frame();
        self.timeline.run_observed(max_m_cycles, watcher);
        if self.timeline.frame() != frame {
            self.calls_at_frame
                .insert(self.timeline.frame(), watcher.calls.clone());
        }
        if watcher.at_address {
            Paused::AtBreakpointAddress
        } else if !watcher.written.is_empty() {
            Paused::Wrote
        } else {
            Paused::Other
        }
    }

    /// Gives the call stack back to the session.
    pub(crate) fn end_observed(&mut self, watcher: Watcher) {
        self.calls = watcher.calls;
    }

    /// The first watchpoint (in order) written by the last step whose condition holds.
    pub(crate) fn watch_hit(&mut self, written: &[u16]) -> Option<u32> {
        for index in 0..self.watchpoints.len() {
            let w = &self.watchpoints[index];
            if w.access == AccessKind::Read {
                continue;
            }
            let Some(&addr) = written.iter().find(|&&a| w.covers(a)) else {
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
                return Some(id);
            }
        }
        None
    }
}
