//! Polling loops' decoded code, kept through a run call (`FastPaths::poll_loop_cache`).
//!
//! Decoding a loop (`polled_read_start`, `SimpleLoop::decode`, `DecodedLoop::decode` and the
//! steps `DecodedLoop::resolve` adds as iterations reach them) reads nothing but its code.
//! Code in the ROM windows stays the same bytes for as long as the same banks are mapped,
//! so a loop decoded there is kept, keyed on where the CPU stands after its read, the
//! polled register and the banks (`PollHooks::rom_banks`), and taken again instead of
//! being decoded afresh on every skip. Finding it also tells that the CPU stands in a loop
//! of a decoded shape, so its first read may start a skip, not only its second
//! (`PollLoops::after_read`): a decoded shape is evaluated from the registers right after
//! the `ldh` (which its decoding checked stands before the CPU's place), so it needs no
//! iteration seen before. A raster loop left and entered again on a line, when its first
//! read comes long after its last, then runs no iteration on the CPU before its skip.
//!
//! The cache is a memo of code bytes, not machine state: it lives in the run loop's
//! `PollLoops`, made afresh by each run call (as the ROM windows are rebuilt), never in
//! `State`, and it keys on nothing a state load or a write could change unseen (ROM banks,
//! not RAM: a loop with any code outside the windows is decoded afresh every time).

use super::{DecodedLoop, PollHooks, SimpleLoop, polled_read_start};
use crate::cpu::CpuState;

/// What decoding found where a read of LY or STAT left the CPU.
pub(super) enum Shape {
    /// No loop of a decoded shape: the dry run's business.
    Dry,
    Simple(SimpleLoop),
    Decoded(DecodedLoop),
}

impl Shape {
    /// The loop the CPU stands in right after a read of `reg`, decoded afresh.
    fn decode(cpu: &CpuState, machine: &mut impl PollHooks, reg: u8) -> Shape {
        let Some(start) = polled_read_start(cpu, machine, reg) else {
            return Shape::Dry;
        };
        if let Some(shape) = SimpleLoop::decode(cpu, machine, start) {
            Shape::Simple(shape)
        } else if let Some(shape) = DecodedLoop::decode(cpu, machine, start) {
            Shape::Decoded(shape)
        } else {
            Shape::Dry
        }
    }

    /// Whether every step a `DecodedLoop` added since `decode` lies in the ROM windows
    /// (`code_in_rom`; `LoopCache::shape` checks what `decode` read).
    fn in_rom(&self) -> bool {
        match self {
            Shape::Decoded(shape) => shape.in_rom,
            Shape::Dry | Shape::Simple(_) => true,
        }
    }
}

/// Whether an instruction of up to three bytes at `address` lies in 0x0000-0x7FFF, the ROM
/// windows' range.
pub(super) fn code_in_rom(address: u16) -> bool {
    address <= 0x7FFD
}

/// One kept loop.
struct Entry {
    /// The CPU's place after the read (the `ldh`'s end) and the register read.
    pc: u16,
    reg: u8,
    /// The banks mapped when it was decoded (`PollHooks::rom_banks`); None: nothing kept.
    banks: Option<[usize; 2]>,
    shape: Shape,
}

/// Entries of a `LoopCache`, indexed by the CPU's place after the read.
const ENTRIES: usize = 4;

/// The kept loops of one run call.
pub(super) struct LoopCache {
    /// `FastPaths::poll_loop_cache`: off, every skip decodes afresh and only a second read
    /// starts one.
    enabled: bool,
    entries: [Entry; ENTRIES],
}

impl LoopCache {
    pub(super) fn new(enabled: bool) -> LoopCache {
        LoopCache {
            enabled,
            entries: std::array::from_fn(|_| Entry {
                pc: 0,
                reg: 0,
                banks: None,
                shape: Shape::Dry,
            }),
        }
    }

    /// The entry for a read that left the CPU at `pc`.
    fn slot(&mut self, pc: u16) -> &mut Entry {
        &mut self.entries[usize::from(pc) % ENTRIES]
    }

    /// Whether a loop of a decoded shape is kept for a read of `reg` that left the CPU at
    /// `pc`, under the banks mapped now.
    #[inline]
    pub(super) fn knows(&mut self, pc: u16, reg: u8, machine: &impl PollHooks) -> bool {
        if !self.enabled {
            return false;
        }
        let entry = self.slot(pc);
        entry.pc == pc
            && entry.reg == reg
            && entry.banks.is_some()
            && entry.banks == machine.rom_banks()
            && !matches!(entry.shape, Shape::Dry)
            && entry.shape.in_rom()
    }

    /// The shape of the loop the CPU stands in right after a read of `reg`: the one kept
    /// for its place, register and banks, else decoded afresh (and kept when its code
    /// lies in the ROM windows).
    pub(super) fn shape(
        &mut self,
        cpu: &CpuState,
        machine: &mut impl PollHooks,
        reg: u8,
    ) -> &mut Shape {
        let banks = if self.enabled {
            machine.rom_banks()
        } else {
            None
        };
        let entry = self.slot(cpu.pc);
        let kept = banks.is_some()
            && entry.banks == banks
            && entry.pc == cpu.pc
            && entry.reg == reg
            && entry.shape.in_rom();
        if !kept {
            entry.shape = Shape::decode(cpu, machine, reg);
            entry.pc = cpu.pc;
            entry.reg = reg;
            // `decode` reads from two bytes before the CPU's place to three after it.
            let around = (2..=0x7FFC).contains(&cpu.pc);
            entry.banks = if around { banks } else { None };
        }
        &mut entry.shape
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::Bus;
    use crate::ppu::ReadForecast;

    /// Code as `PollHooks` sees it: a bank at 0x0000, one of two banks at 0x4000 (told apart
    /// by `rom_banks` as the machine's windows are), and work RAM.
    struct Code {
        low: [u8; 0x4000],
        high: [[u8; 0x4000]; 2],
        bank: usize,
        wram: [u8; 0x2000],
    }

    impl Code {
        fn new() -> Box<Code> {
            Box::new(Code {
                low: [0; 0x4000],
                high: [[0; 0x4000]; 2],
                bank: 0,
                wram: [0; 0x2000],
            })
        }

        /// `ldh a,[rLY]; cp n; jr nz,@-6` at `at` in `bytes`.
        fn put_loop(bytes: &mut [u8], at: usize, n: u8) {
            bytes[at..at + 6].copy_from_slice(&[0xF0, 0x44, 0xFE, n, 0x20, 0xFA]);
        }
    }

    impl Bus for Code {
        type Far = Self;
        #[inline(always)]
        fn far<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> R {
            work(self)
        }
        fn read(&mut self, _addr: u16) -> u8 {
            unreachable!("decoding reads code only")
        }
        fn write(&mut self, _addr: u16, _value: u8) {
            unreachable!("decoding writes nothing")
        }
        fn idle(&mut self) {}
        fn pending_interrupts(&self) -> u8 {
            0
        }
        fn acknowledge_interrupt(&mut self, _bit: u8) {}
    }

    impl PollHooks for Code {
        fn m_cycles(&self) -> u64 {
            0
        }
        fn code_byte(&mut self, addr: u16) -> Option<u8> {
            let offset = usize::from(addr & 0x3FFF);
            match addr {
                0x0000..=0x3FFF => Some(self.low[offset]),
                0x4000..=0x7FFF => Some(self.high[self.bank][offset]),
                0xC000..=0xDFFF => Some(self.wram[usize::from(addr - 0xC000)]),
                _ => None,
            }
        }
        fn steady_register(&mut self, _addr: u16) -> Option<u8> {
            None
        }
        fn skip_poll_iterations(&mut self, _iteration: u64, _limit: u64) -> u64 {
            0
        }
        fn poll_room(&mut self, _limit: u64) -> (u64, u64) {
            (0, 0)
        }
        fn poll_forecast(&mut self, _reg: u8) -> ReadForecast {
            unreachable!("decoding asks no forecast")
        }
        fn skip_poll_to(&mut self, _m_cycle: u64) {}
        fn not_a_poll_loop(&mut self, _target: u16) {}
        fn rom_banks(&self) -> Option<[usize; 2]> {
            Some([0, 1 + self.bank])
        }
    }

    /// The compared value of the `SimpleLoop` `cache` gives for the CPU right after the
    /// `ldh` at `start`.
    fn compared(cache: &mut LoopCache, code: &mut Code, start: u16) -> u8 {
        let cpu = CpuState {
            pc: start + 2,
            ..CpuState::default()
        };
        match cache.shape(&cpu, code, 0x44) {
            Shape::Simple(shape) => shape.operand,
            _ => panic!("not a simple loop at {start:04X}"),
        }
    }

    #[test]
    fn a_kept_loop_is_the_code_mapped_now() {
        let mut code = Code::new();
        Code::put_loop(&mut code.high[0], 0x0100, 5);
        Code::put_loop(&mut code.high[1], 0x0100, 7);
        Code::put_loop(&mut code.low, 0x0100, 9);
        Code::put_loop(&mut code.low, 0x0200, 11);
        Code::put_loop(&mut code.wram, 0x0100, 13);
        let mut cache = LoopCache::new(true);
        assert_eq!(compared(&mut cache, &mut code, 0x4100), 5);
        assert_eq!(compared(&mut cache, &mut code, 0x4100), 5);
        // Another bank at the same place.
        code.bank = 1;
        assert_eq!(compared(&mut cache, &mut code, 0x4100), 7);
        // Another place in the same slot, and the same place read for another register.
        assert_eq!(compared(&mut cache, &mut code, 0x0100), 9);
        let cpu = CpuState {
            pc: 0x0102,
            ..CpuState::default()
        };
        assert!(matches!(cache.shape(&cpu, &mut *code, 0x41), Shape::Dry));
        assert_eq!(compared(&mut cache, &mut code, 0x0200), 11);
        // Code in RAM is decoded afresh.
        assert_eq!(compared(&mut cache, &mut code, 0xC100), 13);
        code.wram[0x0103] = 15;
        assert_eq!(compared(&mut cache, &mut code, 0xC100), 15);
    }
}
