//! 64 KiB of RAM as the CPU's whole world, logging every M-cycle: the CPU unit tests and the
//! SM83 single-step cases check instruction timing against this log.

use backspin_core::testing::Bus;

/// One M-cycle as the bus saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cycle {
    Read(u16, u8),
    Write(u16, u8),
    Idle,
}

/// 64 KiB of RAM plus IF: IE is the byte at 0xFFFF (so pushes can land on it, as on
/// hardware), IF is a separate field (tests set it; acknowledging an interrupt clears its
/// bit). No I/O: with IF left at 0 no interrupt is ever pending.
pub struct FlatBus {
    pub memory: Box<[u8; 0x10000]>,
    /// FF0F IF: the requested interrupts.
    pub interrupt_flag: u8,
    /// Every M-cycle since the log was last taken or cleared.
    pub log: Vec<Cycle>,
    /// `LD B,B` executions.
    pub breakpoints: u32,
    /// STOP executions.
    pub stops: u32,
}

impl FlatBus {
    /// All zeros, nothing pending, an empty log.
    pub fn new() -> FlatBus {
        FlatBus {
            memory: Box::new([0; 0x10000]),
            interrupt_flag: 0,
            log: Vec::new(),
            breakpoints: 0,
            stops: 0,
        }
    }

    /// Zeros with `program` copied to `program_at`.
    pub fn with_program(program_at: u16, program: &[u8]) -> FlatBus {
        let mut bus = FlatBus::new();
        let start = usize::from(program_at);
        bus.memory[start..start + program.len()].copy_from_slice(program);
        bus
    }

    /// Writes FFFF IE without a bus cycle.
    pub fn set_ie(&mut self, value: u8) {
        self.memory[0xFFFF] = value;
    }

    /// The M-cycles logged so far; the log starts empty again.
    pub fn take_log(&mut self) -> Vec<Cycle> {
        std::mem::take(&mut self.log)
    }
}

impl Default for FlatBus {
    fn default() -> FlatBus {
        FlatBus::new()
    }
}

impl Bus for FlatBus {
    type Far = Self;
    #[inline(always)]
    fn far<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> R {
        work(self)
    }
    fn read(&mut self, addr: u16) -> u8 {
        let value = self.memory[usize::from(addr)];
        self.log.push(Cycle::Read(addr, value));
        value
    }
    fn write(&mut self, addr: u16, value: u8) {
        self.memory[usize::from(addr)] = value;
        self.log.push(Cycle::Write(addr, value));
    }
    fn idle(&mut self) {
        self.log.push(Cycle::Idle);
    }
    fn pending_interrupts(&self) -> u8 {
        self.memory[0xFFFF] & self.interrupt_flag & 0x1F
    }
    fn acknowledge_interrupt(&mut self, bit: u8) {
        self.interrupt_flag &= !(1 << bit);
    }
    fn stop(&mut self) -> bool {
        self.stops += 1;
        false
    }
    fn breakpoint(&mut self) {
        self.breakpoints += 1;
    }
}
