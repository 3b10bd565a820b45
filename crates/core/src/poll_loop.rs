//! Skipping the iterations of a loop that polls LY or STAT, such as
//! `ldh a,[rLY]; cp 144; jr c, @-4` (wait for VBlank) or `ldh a,[rLY]; cp b; jr nz, @-3`,
//! or a variable in work RAM or HRAM, such as `ld a,[wFlag]; and a; jr z, @-4` (wait for
//! the VBlank handler).
//!
//! Games spend much of a frame in such loops. Within the machine's quiet window no
//! register is written and no interrupt is requested, so what the loop's reads of LY or
//! STAT return is a function of the PPU's state (`PpuState::read_forecast`), and the
//! iterations are a function of the registers and those values. The run loop runs them
//! dry, on a copy of the registers with the CPU's own `step` over a bus that answers from
//! the forecast and from memory nothing else writes, for as long as each iteration comes
//! back (`skip_register_loop`); a loop whose code after the read only computes on A and F
//! and branches on F (a compare, or a chain of them) is evaluated from its decoded code
//! instead (`SimpleLoop`, `DecodedLoop`). An iteration that leaves the registers as it
//! found them repeats exactly while its reads keep their value, so such repeats pass at
//! once. Then the registers take the dry run's values and the clock moves on by its
//! M-cycles, never past the quiet window's end (so no interrupt request, frame or clock
//! edge is passed) or the run's limit. A memory polling loop reads the same value
//! through the window, so its iterations are whole repeats (`PollLoops::at_loop_jump`).
//! `State` is then byte for byte what executing them leaves (the determinism and
//! render-oracle tests compare runs with deferral on and off).

use crate::bus::Bus;
use crate::cpu::{self, CpuState, FLAG_C, FLAG_Z};
use crate::ppu::ReadForecast;
use bytemuck::bytes_of;
use cache::{LoopCache, Shape, code_in_rom};

mod cache;

/// What the skips ask of the machine they run on (the run loop's `Machine`): code and the
/// quiet window's room, the polled register's forecast, and the clock moved on by a skip.
pub(crate) trait PollHooks: Bus {
    /// The current M-cycle.
    fn m_cycles(&self) -> u64;
    /// The byte at `addr` as the CPU would fetch it, where fetching has no effect and sees
    /// no lock (ROM, work RAM and HRAM; no cycle passes). None elsewhere.
    fn code_byte(&mut self, addr: u16) -> Option<u8>;
    /// What a read of the I/O register at `addr` returns all through the quiet window, if
    /// only a CPU write changes it and reading it has no effect (LYC). None elsewhere.
    fn steady_register(&mut self, addr: u16) -> Option<u8>;
    /// Moves the clock on by as many whole iterations of `iteration` M-cycles of a loop
    /// polling work RAM or HRAM as fit within the quiet window and not past `limit`.
    /// Returns the M-cycle reached.
    fn skip_poll_iterations(&mut self, iteration: u64, limit: u64) -> u64;
    /// The current M-cycle and the M-cycles a skip may pass from it: the rest of the quiet
    /// window but its last tick, not past `limit`.
    fn poll_room(&mut self, limit: u64) -> (u64, u64);
    /// What reads of `reg` (LY or STAT) return over the M-cycles after the current one
    /// while no register is written, as within the quiet window.
    fn poll_forecast(&mut self, reg: u8) -> ReadForecast;
    /// Moves the clock on to `m_cycle`, within the room `poll_room` gave.
    fn skip_poll_to(&mut self, m_cycle: u64);
    /// Marks `target` as a jump target that starts no skippable polling loop.
    fn not_a_poll_loop(&mut self, target: u16);
    /// The ROM banks mapped at 0x0000-0x7FFF while `code_byte` reads them from the ROM
    /// windows, told apart by their place in memory (None while it reads elsewhere): the
    /// same pair means the same code there for the rest of the run call.
    fn rom_banks(&self) -> Option<[usize; 2]>;
}

/// A CPU read of LY or STAT, as the machine reports it (`Events::POLL_READ`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PollRead {
    /// The M-cycle of the read.
    pub m_cycle: u64,
    /// The register's low address byte (`io::LY` or `io::STAT`).
    pub reg: u8,
    /// What the read returned.
    pub value: u8,
}

/// The run loop's memory of the last poll read (where the CPU stood after it), of the
/// last jump back to a memory polling loop (its address and M-cycle), and of the loops
/// decoded in this run call.
pub(crate) struct PollLoops {
    last: Option<(u16, PollRead)>,
    last_jump: Option<(u16, u64)>,
    /// Places (PC, A) right after a poll read whose dry run went wrong before any read
    /// of the register (`Skip::DeadEnd`): code that is no loop, such as a copy that
    /// waits for a mode before each byte, or a loop's way out. Hashed on both, 0 empty.
    dead_ends: [u32; DEAD_ENDS],
    cache: LoopCache,
}

impl PollLoops {
    /// Nothing seen yet; `cache` is `FastPaths::poll_loop_cache`.
    pub(crate) fn new(cache: bool) -> PollLoops {
        PollLoops {
            last: None,
            last_jump: None,
            dead_ends: [0; DEAD_ENDS],
            cache: LoopCache::new(cache),
        }
    }

    /// Called after the instruction that made `read`, when the previous poll read came
    /// from the same instruction of the same register shortly before, or when a loop of
    /// a decoded shape is kept for this place (`LoopCache::knows`): the CPU may be in a
    /// loop polling it. Skips whole iterations of that loop, across changes of the value
    /// read, for as long as each one comes back to this point (`skip_register_loop`).
    pub(crate) fn after_read(
        &mut self,
        cpu: &mut CpuState,
        machine: &mut impl PollHooks,
        read: PollRead,
        limit: u64,
    ) {
        let last = self.last.replace((cpu.pc, read));
        // The loop's iteration, if it is one, is the time between the reads.
        let iteration = last.and_then(|(pc, before)| {
            let iteration = read.m_cycle.wrapping_sub(before.m_cycle);
            (pc == cpu.pc && before.reg == read.reg && iteration <= MAX_ITERATION_M_CYCLES)
                .then_some(iteration)
        });
        if iteration.is_none() && !self.cache.knows(cpu.pc, read.reg, machine)
            || !runs_on(cpu, machine)
        {
            return;
        }
        let place = (u32::from(cpu.pc) << 8 | u32::from(cpu.a)) + 1;
        let slot = usize::from((cpu.pc ^ u16::from(cpu.a)) as u8) % DEAD_ENDS;
        if self.dead_ends[slot] == place {
            return;
        }
        let skip = skip_register_loop(cpu, machine, read.reg, iteration, limit, &mut self.cache);
        match skip {
            Skip::Reached(m_cycle) => self.last = Some((cpu.pc, PollRead { m_cycle, ..read })),
            Skip::DeadEnd => self.dead_ends[slot] = place,
            Skip::None => {}
        }
    }

    /// Called when the CPU has jumped back to `cpu.pc` (`Machine::take_loop_jump`). Skips
    /// whole iterations when it stands at the load of a memory polling loop whose previous
    /// iteration started exactly one iteration earlier: that iteration ran uninterrupted
    /// (an interrupt takes longer), so its load read what memory holds now (only the CPU
    /// writes work RAM and HRAM, and the loop does not), and every further iteration
    /// leaves the registers it left until the quiet window ends.
    pub(crate) fn at_loop_jump(
        &mut self,
        cpu: &CpuState,
        machine: &mut impl PollHooks,
        limit: u64,
    ) {
        let now = machine.m_cycles();
        let Some((pc, before)) = self.last_jump.replace((cpu.pc, now)) else {
            return;
        };
        if pc != cpu.pc {
            return;
        }
        let Some(iteration) = memory_loop_m_cycles(cpu, machine) else {
            machine.not_a_poll_loop(cpu.pc);
            return;
        };
        if now.wrapping_sub(before) != iteration || !runs_on(cpu, machine) {
            return;
        }
        let m_cycle = machine.skip_poll_iterations(iteration, limit);
        self.last_jump = Some((cpu.pc, m_cycle));
    }
}

/// A plainly running CPU, no EI pending, and no interrupt about to be dispatched.
fn runs_on(cpu: &CpuState, machine: &impl PollHooks) -> bool {
    cpu.mode_raw | cpu.halt_bug | (cpu.ime & 2) == 0
        && (cpu.ime == 0 || machine.pending_interrupts() == 0)
}

/// The M-cycles of one iteration of the memory polling loop starting at `cpu.pc`, if it
/// is one: `ld a,[nn]` (4) or `ldh a,[n]` (3) from work RAM or HRAM, then the ALU
/// instruction and jump of [`alu_and_jump_m_cycles`].
fn memory_loop_m_cycles(cpu: &CpuState, machine: &mut impl PollHooks) -> Option<u64> {
    let start = cpu.pc;
    let (address, length, cycles) = match machine.code_byte(start)? {
        0xFA => {
            let low = machine.code_byte(start.wrapping_add(1))?;
            let high = machine.code_byte(start.wrapping_add(2))?;
            (u16::from_le_bytes([low, high]), 3, 4)
        }
        0xF0 => (
            0xFF00 | u16::from(machine.code_byte(start.wrapping_add(1))?),
            2,
            3,
        ),
        _ => return None,
    };
    if !matches!(address, 0xC000..=0xFDFF | 0xFF80..=0xFFFE) {
        return None;
    }
    Some(cycles + alu_and_jump_m_cycles(cpu, machine, start.wrapping_add(length), start)?)
}

/// The M-cycles of the rest of a polling loop from `at`: one ALU instruction whose result
/// depends only on A and registers the loop never changes (not ADC/SBC, not `[hl]`; or
/// `bit n,a`), then a conditional `jr` back to `start` (3), which the current flags take.
/// None for any other code.
fn alu_and_jump_m_cycles(
    cpu: &CpuState,
    machine: &mut impl PollHooks,
    at: u16,
    start: u16,
) -> Option<u64> {
    let op = machine.code_byte(at)?;
    // (bytes, M-cycles) of the ALU instruction.
    let (length, cycles) = match op {
        // add/sub/and/xor/or/cp a,d8.
        0xC6 | 0xD6 | 0xE6 | 0xEE | 0xF6 | 0xFE => (2, 2),
        // add/sub/and/xor/or/cp a,r (not [hl], not adc/sbc, which read the carry).
        0x80..=0x87 | 0x90..=0x97 | 0xA0..=0xBF if op & 7 != 6 => (1, 1),
        // bit n,a (keeps C, which no iteration changes).
        0xCB if machine.code_byte(at.wrapping_add(1))? & 0xC7 == 0x47 => (2, 2),
        _ => return None,
    };
    let jr = at.wrapping_add(length);
    let offset = machine.code_byte(jr.wrapping_add(1))? as i8;
    let taken = match machine.code_byte(jr)? {
        0x20 => cpu.f & FLAG_Z == 0,
        0x28 => cpu.f & FLAG_Z != 0,
        0x30 => cpu.f & FLAG_C == 0,
        0x38 => cpu.f & FLAG_C != 0,
        _ => return None,
    };
    let target = jr.wrapping_add(2).wrapping_add_signed(i16::from(offset));
    if !taken || target != start {
        return None;
    }
    Some(cycles + 3)
}

/// The longest loop iteration, in M-cycles, whose reads start a skip (a cheap filter:
/// `after_read` looks only at reads this close to the one before from the same place).
const MAX_ITERATION_M_CYCLES: u64 = 64;
/// The most instructions an iteration may take to come back to where it started.
const MAX_ITERATION_INSTRUCTIONS: u32 = 16;
/// The most iterations one skip runs on the dry bus (each distinct state and value once,
/// repeats are passed in bulk): a bound on a skip's cost.
const MAX_DRY_ITERATIONS: u32 = 48;
/// The most passes of one `DecodedLoop::skip` (each a few instructions, for a new value or
/// the repeats of one): enough for a wait on LY through a whole frame (two a line).
const MAX_DECODED_ITERATIONS: u32 = 320;
/// Entries of `PollLoops::dead_ends`.
const DEAD_ENDS: usize = 8;

/// Skips the iterations of the loop the CPU stands in, right after an instruction that
/// read `reg` (LY or STAT), as far as each comes back to this point. A loop of a decoded
/// shape (kept in `cache` or decoded now) is evaluated from its decoded code; any other,
/// when `iteration` (the M-cycles since the read before, at the same place) is known,
/// runs each iteration on a copy of the registers with the CPU's own `step`, over a bus
/// that lets through only code and data fetches that cannot change within the quiet
/// window (ROM, work RAM, HRAM, LYC) and reads of `reg`, which return what
/// `PpuState::read_forecast` says they will at their M-cycle; anything else (a write,
/// another register, EI, HALT, an interrupt) ends the skip before that iteration. An iteration that leaves the registers as it found them
/// repeats exactly while its reads return the same values, so such repeats pass in bulk.
/// The skip never passes the quiet window's last tick or `limit`. Sets `cpu` to the
/// registers the last skipped iteration left and moves the clock on to its end.
#[inline(never)]
fn skip_register_loop(
    cpu: &mut CpuState,
    machine: &mut impl PollHooks,
    reg: u8,
    iteration: Option<u64>,
    limit: u64,
    cache: &mut LoopCache,
) -> Skip {
    let (now, room) = machine.poll_room(limit);
    if room < iteration.unwrap_or(0) {
        return Skip::None;
    }
    let decoded = match cache.shape(cpu, machine, reg) {
        Shape::Simple(shape) => skip_decoded(shape, cpu, machine, reg, now, room),
        Shape::Decoded(shape) => skip_decoded(shape, cpu, machine, reg, now, room),
        Shape::Dry => None,
    };
    if let Some(skip) = decoded {
        return skip;
    }
    // A skip from a loop's first read takes only a decoded shape.
    let Some(mut iteration) = iteration else {
        return Skip::None;
    };
    let mut bus = DryBus {
        machine,
        reg,
        forecast: None,
        m_cycles: 0,
        slack: u64::MAX,
        failed: false,
    };
    let mut registers = *cpu;
    let mut reached = 0;
    for _ in 0..MAX_DRY_ITERATIONS {
        // An iteration as long as the last one would not fit (the common end of a skip;
        // another path's length may differ, but stopping early is always exact).
        if bus.m_cycles + iteration > room {
            break;
        }
        let start = bus.m_cycles;
        let mut after = registers;
        let came_back = bus.run_iteration(&mut after);
        if !came_back || bus.m_cycles > room {
            if reached == 0 && bus.forecast.is_none() {
                // Wrong whatever the PPU shows.
                return Skip::DeadEnd;
            }
            break;
        }
        iteration = bus.m_cycles - start;
        if bytes_of(&after) == bytes_of(&registers) {
            // Every further iteration repeats this one while its reads keep their values
            // (`slack` M-cycles on) and it ends within the room.
            let repeats = (bus.slack / iteration).min((room - bus.m_cycles) / iteration);
            bus.m_cycles += repeats * iteration;
        }
        registers = after;
        reached = bus.m_cycles;
    }
    if reached == 0 {
        return Skip::None;
    }
    *cpu = registers;
    machine.skip_poll_to(now + reached);
    Skip::Reached(now + reached)
}

/// The address of the `ldh a,[reg]` the CPU has just run, if that is what stands before
/// its PC: where a loop of a decoded shape starts.
fn polled_read_start(cpu: &CpuState, machine: &mut impl PollHooks, reg: u8) -> Option<u16> {
    let start = cpu.pc.wrapping_sub(2);
    let is_ldh =
        machine.code_byte(start)? == 0xF0 && machine.code_byte(start.wrapping_add(1))? == reg;
    is_ldh.then_some(start)
}

/// The flag mask and value under which a conditional `jr`/`jp` (opcode bits 3-4: NZ, Z,
/// NC, C) jumps: when `f & mask == want`.
fn jump_condition(opcode: u8) -> (u8, u8) {
    match opcode >> 3 & 3 {
        0 => (FLAG_Z, 0),
        1 => (FLAG_Z, FLAG_Z),
        2 => (FLAG_C, 0),
        _ => (FLAG_C, FLAG_C),
    }
}

/// A polling loop whose iterations are evaluated from its decoded code (`skip_decoded`),
/// much faster than by running them dry, and to the same registers. Its code after the
/// `ldh a,[reg]` changes only A and F and branches on F.
trait LoopShape {
    /// Runs one iteration on `registers`, which stand right after the `ldh`'s read, up to
    /// and including the next one (whose value the caller puts in A): its M-cycles, or
    /// None if it leaves the loop. Only A and F change (the loop's ops write only them).
    fn run(&mut self, machine: &mut impl PollHooks, registers: &mut cpu::Registers) -> Option<u64>;
    /// Whether any decoded path leads back to the `ldh` (an iteration that leaves the loop
    /// from there does so whatever the PPU shows).
    fn loops_back(&self) -> bool;
}

/// The commonest polling loop, `start: ldh a,[reg]; <op>; jr cc,start`, where `<op>`
/// changes only A and F (`cpu::apply_register_op`): a `DecodedLoop` of two steps, in a
/// form that evaluates an iteration in a few instructions.
struct SimpleLoop {
    opcode: u8,
    operand: u8,
    /// The M-cycles from the `ldh`'s read to the next one: `<op>`, the taken `jr` (3),
    /// the `ldh` (3, its read in the last).
    iteration: u64,
    /// The jump is taken when `f & mask == want`.
    mask: u8,
    want: u8,
}

impl SimpleLoop {
    /// The loop the CPU stands in, right after its `ldh a,[reg]` at `start`
    /// (`polled_read_start`), if it has this shape.
    fn decode(cpu: &CpuState, machine: &mut impl PollHooks, start: u16) -> Option<SimpleLoop> {
        let opcode = machine.code_byte(cpu.pc)?;
        let operand = machine.code_byte(cpu.pc.wrapping_add(1))?;
        let length = cpu::apply_register_op(&mut { *cpu }, opcode, operand)?;
        let jr = cpu.pc.wrapping_add(length as u16);
        let (mask, want) = match machine.code_byte(jr)? {
            jump @ (0x20 | 0x28 | 0x30 | 0x38) => jump_condition(jump),
            _ => return None,
        };
        let offset = machine.code_byte(jr.wrapping_add(1))? as i8;
        if jr.wrapping_add(2).wrapping_add_signed(i16::from(offset)) != start {
            return None;
        }
        Some(SimpleLoop {
            opcode,
            operand,
            iteration: length + 6,
            mask,
            want,
        })
    }
}

impl LoopShape for SimpleLoop {
    #[inline(always)]
    fn run(
        &mut self,
        _machine: &mut impl PollHooks,
        registers: &mut cpu::Registers,
    ) -> Option<u64> {
        cpu::apply_register_op_to(registers, self.opcode, self.operand);
        (registers.f & self.mask == self.want).then_some(self.iteration)
    }

    fn loops_back(&self) -> bool {
        true
    }
}

/// A polling loop evaluated from its decoded code: `start: ldh a,[reg]`, then code that
/// only computes on A and F (`cpu::apply_register_op`: ALU ops with a register or an
/// immediate, `bit n,a`) and branches on F (`jr`/`jp`, conditional or not), some of whose
/// paths come back to `start`: the loops of that kind that are not a `SimpleLoop`, such
/// as a compare chain `ldh a,[rLY]; cp c; jr nz,@+x; ...; cp $8E; jp z,out; cp b; jr
/// nz,start` (wait for one of several lines). A path that leaves the decoded code is the
/// loop's way out.
struct DecodedLoop {
    /// The `ldh`'s address: a jump there is the way back.
    start: u16,
    /// The decoded instructions, as far as an iteration has gone (decoded when first
    /// reached, so a loop's way out is decoded only when taken): the first is the one
    /// after the `ldh`.
    steps: [LoopStep; MAX_LOOP_STEPS],
    len: u8,
    /// Whether every step decoded (or found to be none) since `decode` lies in the ROM
    /// windows' range (`cache::code_in_rom`), so that the loop may be kept.
    in_rom: bool,
}

/// One instruction of a `DecodedLoop`: a register op, a jump, or a conditional jump.
#[derive(Clone, Copy, Default)]
struct LoopStep {
    /// Where it is (to find a step again when a jump leads to it).
    address: u16,
    /// The register op it applies, if it is one (`cpu::apply_register_op`).
    op: Option<(u8, u8)>,
    /// Which way it goes: `taken` (index 1) when `f & mask == want` after the op, else
    /// index 0. An op or a plain jump always goes the way of index 1.
    mask: u8,
    want: u8,
    /// The M-cycles of each way.
    cycles: [u8; 2],
    /// The address each way leads to, and the step there once resolved (`UNRESOLVED`,
    /// `BACK` to the `ldh`, `OUT` of the decoded code, or a step's index).
    to: [u16; 2],
    next: [u8; 2],
}

/// `LoopStep::next` not yet looked up.
const UNRESOLVED: u8 = 0xFD;
/// `LoopStep::next` of a way back to the loop's `ldh`.
const BACK: u8 = 0xFE;
/// `LoopStep::next` of a way into code that is not decoded: the loop's way out.
const OUT: u8 = 0xFF;
/// The most instructions a `DecodedLoop` decodes (any path past them is a way out).
const MAX_LOOP_STEPS: usize = 8;

impl LoopStep {
    /// The instruction at `address` if the loop may hold it.
    fn decode(machine: &mut impl PollHooks, address: u16) -> Option<LoopStep> {
        let opcode = machine.code_byte(address)?;
        let operand = machine.code_byte(address.wrapping_add(1));
        let mut step = LoopStep {
            address,
            next: [UNRESOLVED; 2],
            ..LoopStep::default()
        };
        // (bytes, M-cycles not taken, M-cycles taken, target) of a jump.
        let (length, cycles, target) = match opcode {
            0x18 | 0x20 | 0x28 | 0x30 | 0x38 => {
                let offset = operand? as i8;
                let target = address
                    .wrapping_add(2)
                    .wrapping_add_signed(i16::from(offset));
                (2, [2, 3], target)
            }
            0xC3 | 0xC2 | 0xCA | 0xD2 | 0xDA => {
                let high = machine.code_byte(address.wrapping_add(2))?;
                (3, [3, 4], u16::from_le_bytes([operand?, high]))
            }
            _ => {
                // A register op, whose operand (if it has one) is in code too.
                let operand_or_none = operand.unwrap_or(0);
                let length =
                    cpu::apply_register_op(&mut CpuState::default(), opcode, operand_or_none)?;
                if length > 1 {
                    operand?;
                }
                let after = address.wrapping_add(length as u16);
                step.op = Some((opcode, operand_or_none));
                step.cycles = [length as u8; 2];
                step.to = [after; 2];
                return Some(step);
            }
        };
        if opcode & 0x07 != 0x03 && opcode != 0x18 {
            // Conditional (not `jr` or `jp` alone).
            (step.mask, step.want) = jump_condition(opcode);
        }
        step.cycles = cycles;
        step.to = [address.wrapping_add(length), target];
        Some(step)
    }
}

impl DecodedLoop {
    /// The loop the CPU stands in, right after its `ldh a,[reg]` at `start`
    /// (`polled_read_start`), if it has this shape (as far as the instruction after it).
    fn decode(cpu: &CpuState, machine: &mut impl PollHooks, start: u16) -> Option<DecodedLoop> {
        let mut steps = [LoopStep::default(); MAX_LOOP_STEPS];
        steps[0] = LoopStep::decode(machine, cpu.pc)?;
        Some(DecodedLoop {
            start,
            steps,
            len: 1,
            in_rom: true,
        })
    }

    /// Where way `way` of step `at` leads, decoding the instruction there if it is new.
    #[cold]
    fn resolve(&mut self, machine: &mut impl PollHooks, at: usize, way: usize) -> u8 {
        let address = self.steps[at].to[way];
        let len = usize::from(self.len);
        let next = if address == self.start {
            BACK
        } else if let Some(index) = self.steps[..len]
            .iter()
            .position(|step| step.address == address)
        {
            index as u8
        } else if len < MAX_LOOP_STEPS
            && let Some(step) = {
                // What the bytes there are, or that they are no step, is kept.
                self.in_rom &= code_in_rom(address);
                LoopStep::decode(machine, address)
            }
        {
            self.steps[len] = step;
            self.len += 1;
            len as u8
        } else {
            OUT
        };
        self.steps[at].next[way] = next;
        next
    }
}

impl LoopShape for DecodedLoop {
    #[inline]
    fn run(&mut self, machine: &mut impl PollHooks, registers: &mut cpu::Registers) -> Option<u64> {
        // The `ldh` back at the start, its read in its last M-cycle.
        let mut cycles = 3;
        let mut at = 0;
        for _ in 0..MAX_ITERATION_INSTRUCTIONS {
            let step = &self.steps[at];
            if let Some((opcode, operand)) = step.op {
                cpu::apply_register_op_to(registers, opcode, operand);
            }
            let way = usize::from(registers.f & step.mask == step.want);
            cycles += u64::from(step.cycles[way]);
            let mut next = step.next[way];
            if next == UNRESOLVED {
                next = self.resolve(machine, at, way);
            }
            match next {
                BACK => return Some(cycles),
                OUT => return None,
                next => at = usize::from(next),
            }
        }
        None
    }

    fn loops_back(&self) -> bool {
        self.steps[..usize::from(self.len)]
            .iter()
            .any(|step| step.to.contains(&self.start))
    }
}

/// `skip_register_loop` for a loop of a decoded shape, the CPU right after its read: the
/// iterations evaluated from the code, one pass for each new value the forecast gives and one
/// that passes in bulk the iterations repeating it (those whose read returns it again
/// and which leave A and F as they were, so take the same path). None when the first
/// iteration leaves the decoded code that holds no way back, which may be a loop
/// through other instructions (for the dry run).
fn skip_decoded(
    shape: &mut impl LoopShape,
    cpu: &mut CpuState,
    machine: &mut impl PollHooks,
    reg: u8,
    now: u64,
    room: u64,
) -> Option<Skip> {
    // The registers after the last read reached (`m`), and after the iteration from
    // them up to the next read (`iteration` M-cycles), before that read. Only A and F
    // differ from the CPU's.
    let mut registers = cpu::Registers::from(*cpu);
    let mut after = registers;
    let Some(mut iteration) = shape.run(machine, &mut after) else {
        // Wrong whatever the PPU shows.
        return shape.loops_back().then_some(Skip::DeadEnd);
    };
    let forecast = machine.poll_forecast(reg);
    let mut m = 0;
    for _ in 0..MAX_DECODED_ITERATIONS {
        let next = m + iteration;
        if next > room {
            break;
        }
        let Some((value, last)) = forecast.at(next) else {
            break;
        };
        after.a = value;
        if (after.a, after.f) == (registers.a, registers.f) {
            // So does every further iteration whose read returns `value` (up to
            // `last`) and ends within the room.
            m = next + (last.min(room) - next) / iteration * iteration;
            continue;
        }
        m = next;
        registers = after;
        match shape.run(machine, &mut after) {
            Some(cycles) => iteration = cycles,
            None => break,
        }
    }
    if m == 0 {
        return Some(Skip::None);
    }
    *cpu = registers.into();
    machine.skip_poll_to(now + m);
    Some(Skip::Reached(now + m))
}

/// What `skip_register_loop` did.
enum Skip {
    /// Skipped iterations up to this M-cycle.
    Reached(u64),
    /// Nothing: the first iteration went wrong before any read of the register, so it
    /// does whatever the PPU shows.
    DeadEnd,
    /// Nothing, for now.
    None,
}

/// The bus of a dry run of a polling loop's iterations (`skip_register_loop`): reads of
/// the polled register return the forecast, code and data come from memory that only
/// the CPU writes or nobody does, and so do registers only the CPU writes (LYC,
/// `PollHooks::steady_register`); anything else fails the run. No cycle passes on the
/// machine; `m_cycles` counts those of the dry run.
struct DryBus<'m, M: PollHooks> {
    machine: &'m mut M,
    /// The polled register (`io::LY` or `io::STAT`).
    reg: u8,
    /// What reads of `reg` return, asked of the PPU at the first (most dry runs of code
    /// that is no loop end before).
    forecast: Option<ReadForecast>,
    /// M-cycles since the skip's start.
    m_cycles: u64,
    /// The fewest M-cycles by which any of this iteration's reads of `reg` could come
    /// later and still return the same value.
    slack: u64,
    /// Something other than a read of code, data or `reg` happened.
    failed: bool,
}

impl<M: PollHooks> DryBus<'_, M> {
    /// Runs `registers` on from where they stand until they are back there, at most
    /// `MAX_ITERATION_INSTRUCTIONS` instructions. False if the loop went elsewhere, or
    /// did anything the dry run does not allow.
    fn run_iteration(&mut self, state: &mut CpuState) -> bool {
        // The interpreter's form of the registers for the whole iteration.
        let mut registers = cpu::Registers::from(*state);
        let back = self.run_iteration_on(&mut registers);
        *state = registers.into();
        back
    }

    #[inline(always)]
    fn run_iteration_on(&mut self, registers: &mut cpu::Registers) -> bool {
        let start = registers.pc;
        self.slack = u64::MAX;
        for _ in 0..MAX_ITERATION_INSTRUCTIONS {
            cpu::step_registers(registers, self);
            // Whatever stops the CPU running plainly (EI, HALT, STOP, an illegal opcode)
            // calls `cpu_changed`, which fails the run.
            debug_assert!(self.failed || registers.runs_plainly());
            if self.failed {
                return false;
            }
            if registers.pc == start {
                return true;
            }
        }
        false
    }

    fn fail(&mut self) {
        self.failed = true;
    }
}

impl<M: PollHooks> Bus for DryBus<'_, M> {
    type Far = Self;
    #[inline(always)]
    fn far<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> R {
        work(self)
    }
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.m_cycles += 1;
        if addr == 0xFF00 | u16::from(self.reg) {
            let forecast = *self
                .forecast
                .get_or_insert_with(|| self.machine.poll_forecast(self.reg));
            let Some((value, last)) = forecast.at(self.m_cycles) else {
                self.fail();
                return 0xFF;
            };
            self.slack = self.slack.min(last - self.m_cycles);
            return value;
        }
        // Work RAM and HRAM: only the CPU writes them, and the dry run does not; nor the
        // registers that only it writes.
        let byte = match self.machine.code_byte(addr) {
            Some(byte) => Some(byte),
            None => self.machine.steady_register(addr),
        };
        byte.unwrap_or_else(|| {
            self.fail();
            0xFF
        })
    }
    fn write(&mut self, _addr: u16, _value: u8) {
        self.m_cycles += 1;
        self.fail();
    }
    #[inline(always)]
    fn idle(&mut self) {
        self.m_cycles += 1;
    }
    fn idle_with_address(&mut self, addr: u16) {
        self.m_cycles += 1;
        // The OAM corruption bug.
        if addr & 0xFF00 == 0xFE00 {
            self.fail();
        }
    }
    fn halt_wake_interrupts(&mut self) -> u8 {
        self.fail();
        0
    }
    fn halt_bug_interrupts(&mut self) -> u8 {
        self.fail();
        0
    }
    fn pending_interrupts(&self) -> u8 {
        // Only a CPU with IME on asks (HALT fails the run), and `runs_on` has seen none
        // pending for it; none is requested within the quiet window.
        0
    }
    fn acknowledge_interrupt(&mut self, _bit: u8) {
        self.fail();
    }
    fn stop(&mut self) -> bool {
        self.fail();
        false
    }
    fn finish_speed_switch(&mut self, _pause: bool) {
        self.fail();
    }
    fn cpu_changed(&mut self) {
        self.fail();
    }
    fn breakpoint(&mut self) {
        self.fail();
    }
}
