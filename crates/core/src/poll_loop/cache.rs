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
