//! [`Core::run_observed`]: a run that a debugger watches, instruction by instruction, on
//! its own entry point so the normal run loop stays as it is.

use super::Core;
use crate::bus::Bus;
use crate::cpu::{self, CpuMode, CpuState};
use crate::events::Events;
use crate::machine::Machine;
use crate::poll_loop::{PollHooks, PollLoops};

/// What watches a [`Core::run_observed`] run. Every call is made between or within CPU
/// steps; returning true stops the run (before the step, or after the step that made the
/// access).
pub trait StepObserver {
    /// Before each CPU step but the run's first, with the CPU about to take it at core
    /// M-cycle `m_cycle` ([`Core::m_cycles`]).
    fn stop_before(&mut self, cpu: &CpuState, m_cycle: u64) -> bool;
    /// A CPU write (an instruction's, or an interrupt dispatch's push) during the step.
    fn write(&mut self, addr: u16, value: u8) -> bool;
    /// After each step: the CPU before and after it, and whether it dispatched an interrupt.
    fn after_step(&mut self, before: &CpuState, after: &CpuState, interrupt: bool) -> bool;
    /// Whether the run may skip iterations of a loop polling LY, STAT or RAM whose code is
    /// a few bytes around `pc` (poll-loop skipping): such a loop writes nothing, but its
    /// skipped instructions are not reported. No by default.
    fn may_skip_loop_at(&mut self, pc: u16) -> bool {
        let _ = pc;
        false
    }
}

/// The machine as the CPU sees it, telling the observer of every write.
struct Observed<'m, 'a, O> {
    machine: &'m mut Machine<'a>,
    observer: &'m mut O,
    stop: bool,
    interrupt: bool,
}

impl<O: StepObserver> Bus for Observed<'_, '_, O> {
    type Far = Self;
    #[inline(always)]
    fn far<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> R {
        work(self)
    }
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.machine.read(addr)
    }
    #[inline(always)]
    fn read_after_fetch(&mut self, addr: u16, pc: u16) -> u8 {
        self.machine.read_after_fetch(addr, pc)
    }
    #[inline(always)]
    fn write(&mut self, addr: u16, value: u8) {
        self.stop |= self.observer.write(addr, value);
        self.machine.write(addr, value);
    }
    #[inline(always)]
    fn read_high(&mut self, low: u8) -> u8 {
        self.machine.read_high(low)
    }
    #[inline(always)]
    fn write_high(&mut self, low: u8, value: u8) {
        self.stop |= self.observer.write(0xFF00 | u16::from(low), value);
        self.machine.write_high(low, value);
    }
    #[inline(always)]
    fn idle(&mut self) {
        self.machine.idle();
    }
    #[inline(always)]
    fn idle_halted(&mut self) {
        self.machine.idle_halted();
    }
    #[inline(always)]
    fn idle_halted_at(&mut self, pc: u16) {
        self.machine.idle_halted_at(pc);
    }
    #[inline(always)]
    fn idle_with_address(&mut self, addr: u16) {
        self.machine.idle_with_address(addr);
    }
    #[inline(always)]
    fn halt_wake_interrupts(&mut self) -> u8 {
        self.machine.halt_wake_interrupts()
    }
    #[inline(always)]
    fn halt_bug_interrupts(&mut self) -> u8 {
        self.machine.halt_bug_interrupts()
    }
    #[inline(always)]
    fn pending_interrupts(&self) -> u8 {
        self.machine.pending_interrupts()
    }
    #[inline(always)]
    fn acknowledge_interrupt(&mut self, bit: u8) {
        self.interrupt = true;
        self.machine.acknowledge_interrupt(bit);
    }
    #[inline(always)]
    fn idle_stopped(&mut self) {
        self.machine.idle_stopped();
    }
    #[inline(always)]
    fn joypad_line_low(&self) -> bool {
        self.machine.joypad_line_low()
    }
    #[inline(always)]
    fn stop(&mut self) -> bool {
        self.machine.stop()
    }
    #[inline(always)]
    fn finish_speed_switch(&mut self, pause: bool) {
        self.machine.finish_speed_switch(pause);
    }
    #[inline(always)]
    fn cpu_changed(&mut self) {
        self.machine.cpu_changed();
    }
    #[inline(always)]
    fn checks_due(&self) -> bool {
        self.machine.checks_due()
    }
    #[inline(always)]
    fn read_plain_fetch(&mut self, addr: u16) -> (u8, bool) {
        self.machine.read_plain_fetch(addr)
    }
    #[inline(always)]
    fn short_loop_jump(&mut self, target: u16) {
        self.machine.short_loop_jump(target);
    }
    #[inline(always)]
    fn breakpoint(&mut self) {
        self.machine.breakpoint();
    }
}

impl Core {
    /// Runs until the next frame is complete, the M-cycle clock reaches `limit` (or passes
    /// it by less than one instruction), the CPU executes a breakpoint, or `observer` stops
    /// it. The observer sees every instruction and every CPU write, except the iterations
    /// of polling loops it lets the run skip ([`StepObserver::may_skip_loop_at`]; they
    /// write nothing); halt skipping, deferred ticks, plain steps and the ROM windows stay
    /// on (they skip no instruction and no write). The `State` reached is the one single steps reach.
    pub fn run_observed<O: StepObserver>(&mut self, limit: u64, observer: &mut O) -> Events {
        let frame_limit = self.state.hw.m_cycles + 2 * crate::M_CYCLES_PER_FRAME;
        let limit = limit.min(frame_limit);
        let hw = &mut self.state.hw;
        let mut registers = self.state.cpu;
        let cpu = &mut registers;
        let mut machine = Machine::new(
            hw,
            &self.rom,
            self.boot_rom.as_ref(),
            &mut self.out,
            self.fast,
        );
        machine.set_stop_m_cycle(limit);
        let stop_events = Events::BREAKPOINT | Events::FRAME_READY;
        let mut first = true;
        let mut polls = PollLoops::new(self.fast.poll_loop_cache);
        loop {
            // As in `Core::run`: the checks only when the machine says they are due, plain
            // steps in between; the observer sees every step either way.
            let due = machine.take_checks_due_at(cpu.pc);
            if due {
                if machine.m_cycles() >= limit || machine.events().intersects(stop_events) {
                    break;
                }
                if let Some(read) = machine.take_poll_read() {
                    if self.fast.poll_loop_skipping && observer.may_skip_loop_at(cpu.pc) {
                        polls.after_read(cpu, &mut machine, read, limit);
                    }
                    // A skip moves the clock: the limit and the CPU are checked again.
                    machine.require_checks();
                    continue;
                }
                if machine.take_loop_jump() {
                    if self.fast.poll_loop_skipping && observer.may_skip_loop_at(cpu.pc) {
                        polls.at_loop_jump(cpu, &mut machine, limit);
                    } else {
                        machine.not_a_poll_loop(cpu.pc);
                    }
                    machine.require_checks();
                    continue;
                }
            }
            if !first && observer.stop_before(cpu, machine.m_cycles()) {
                break;
            }
            first = false;
            let before = *cpu;
            let running = cpu.mode() == CpuMode::Running;
            if due && !running && self.fast.halt_skipping {
                let idle = cpu.mode() != CpuMode::Halted || machine.pending_interrupts() == 0;
                if idle {
                    let budget = limit.saturating_sub(machine.m_cycles() + 1);
                    machine.skip_idle_cycles(cpu.mode(), budget);
                }
            }
            let mut bus = Observed {
                machine: &mut machine,
                observer: &mut *observer,
                stop: false,
                interrupt: false,
            };
            if due {
                cpu::step(cpu, &mut bus);
            } else {
                let mut registers = cpu::Registers::from(*cpu);
                cpu::step_plain(&mut registers, &mut bus);
                *cpu = registers.into();
            }
            let (stop, interrupt) = (bus.stop, bus.interrupt);
            if due && (!running || !cpu.runs_plainly()) {
                machine.require_checks();
            }
            if observer.after_step(&before, cpu, interrupt) | stop {
                break;
            }
        }
        machine.take_poll_read();
        let mut events = machine.take_events();
        drop(machine);
        self.state.cpu = registers;
        if self.state.cpu.mode() == CpuMode::Locked {
            events |= Events::CPU_LOCKED;
        }
        events
    }
}
