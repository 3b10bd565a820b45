//! CPU unit tests on a flat 64 KiB bus that logs every M-cycle: interrupt dispatch timing,
//! the `ie_push` cancel, EI delay, HALT and the HALT bug. Instruction semantics and timing
//! are covered by the 500,000 SM83 cases in `tests/single_step.rs`.

use backspin_core::state::{CpuMode, CpuState};
use backspin_core::testing::step;
use backspin_test_support::{Cycle, FlatBus};

fn cpu_at(pc: u16, sp: u16) -> CpuState {
    CpuState {
        pc,
        sp,
        ..CpuState::default()
    }
}

const NOP: u8 = 0x00;
const EI: u8 = 0xFB;
const DI: u8 = 0xF3;
const HALT: u8 = 0x76;
const INC_A: u8 = 0x3C;

#[test]
fn dispatch_takes_five_cycles_and_pushes_pc() {
    let mut bus = FlatBus::with_program(0x0200, &[NOP]);
    let mut cpu = cpu_at(0x0200, 0xD000);
    cpu.ime = 1;
    bus.set_ie(0x1F);
    bus.interrupt_flag = 0b0_0110; // STAT and timer: STAT (bit 1) has priority
    step(&mut cpu, &mut bus);
    assert_eq!(
        bus.take_log(),
        [
            Cycle::Read(0x0200, NOP), // the opcode fetch that samples the request, then dropped
            Cycle::Idle,
            Cycle::Write(0xCFFF, 0x02),
            Cycle::Write(0xCFFE, 0x00),
            Cycle::Idle
        ]
    );
    assert_eq!(cpu.pc, 0x0048);
    assert_eq!(cpu.sp, 0xCFFE);
    assert_eq!(cpu.ime, 0);
    assert_eq!(
        bus.interrupt_flag, 0b0_0100,
        "only the serviced bit is acknowledged"
    );
    // IME is off now: the handler runs although the timer interrupt is still pending.
    step(&mut cpu, &mut bus);
    assert_eq!(bus.take_log(), [Cycle::Read(0x0048, 0x00)]);
}

#[test]
fn no_dispatch_while_ime_off_or_nothing_pending() {
    let mut bus = FlatBus::with_program(0x0100, &[NOP, NOP]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus); // IME off
    cpu.ime = 1;
    bus.interrupt_flag = 0x02; // requested but not enabled
    step(&mut cpu, &mut bus);
    assert_eq!(
        bus.take_log(),
        [Cycle::Read(0x0100, 0), Cycle::Read(0x0101, 0)]
    );
}

/// Mooneye `ie_push`: SP = 0x0000, so the high byte of PC is pushed onto IE at 0xFFFF.
#[test]
fn push_onto_ie_redirects_or_cancels_dispatch() {
    // PC high byte 0x02 written to IE keeps only the STAT interrupt enabled: VBlank (bit 0)
    // was the one being dispatched, STAT (bit 1) is taken instead.
    let mut bus = FlatBus::with_program(0x0200, &[NOP]);
    let mut cpu = cpu_at(0x0200, 0x0000);
    cpu.ime = 1;
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x03;
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.pc, 0x0048);
    assert_eq!(bus.interrupt_flag, 0x01);
    assert_eq!(bus.memory[0xFFFF], 0x02);
    assert_eq!(bus.memory[0xFFFE], 0x00);

    // PC high byte 0x00 disables everything: PC becomes 0x0000, nothing is acknowledged.
    let mut bus = FlatBus::with_program(0x0010, &[NOP]);
    let mut cpu = cpu_at(0x0010, 0x0000);
    cpu.ime = 1;
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    assert_eq!(bus.log.len(), 5);
    assert_eq!(cpu.pc, 0x0000);
    assert_eq!(cpu.sp, 0xFFFE);
    assert_eq!(cpu.ime, 0);
    assert_eq!(bus.interrupt_flag, 0x01);
}

#[test]
fn ei_enables_after_the_next_instruction() {
    let mut bus = FlatBus::with_program(0x0100, &[EI, INC_A, INC_A]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x04);
    bus.interrupt_flag = 0x04;
    step(&mut cpu, &mut bus); // EI
    assert_eq!(cpu.ime, 2);
    step(&mut cpu, &mut bus); // INC A still runs
    assert_eq!((cpu.a, cpu.ime), (1, 1));
    step(&mut cpu, &mut bus); // now the timer interrupt
    assert_eq!(cpu.pc, 0x0050);
    assert_eq!(cpu.a, 1);
    assert_eq!(bus.memory[0xCFFF], 0x01);
    assert_eq!(
        bus.memory[0xCFFE], 0x02,
        "return address is the second INC A"
    );
}

#[test]
fn ei_then_di_never_takes_the_interrupt() {
    let mut bus = FlatBus::with_program(0x0100, &[EI, DI, NOP, NOP]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    for _ in 0..4 {
        step(&mut cpu, &mut bus);
    }
    assert_eq!(cpu.pc, 0x0104);
    assert_eq!(cpu.ime, 0);
    assert_eq!(bus.interrupt_flag, 0x01);
}

#[test]
fn ei_while_enabled_and_reti() {
    // EI with IME already on changes nothing: the interrupt is taken right after it.
    let mut bus = FlatBus::with_program(0x0100, &[EI, NOP]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    cpu.ime = 1;
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.ime, 1);
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.pc, 0x0040);

    // RETI enables at once: the next step dispatches.
    let mut bus = FlatBus::with_program(0x0100, &[0xD9]);
    bus.memory[0xC000] = 0x34;
    bus.memory[0xC001] = 0x12;
    let mut cpu = cpu_at(0x0100, 0xC000);
    bus.set_ie(0x10);
    bus.interrupt_flag = 0x10;
    step(&mut cpu, &mut bus);
    assert_eq!((cpu.pc, cpu.ime), (0x1234, 1));
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.pc, 0x0060);
}

#[test]
fn halt_waits_then_wakes_without_ime() {
    let mut bus = FlatBus::with_program(0x0100, &[HALT, INC_A]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x01);
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.mode(), CpuMode::Halted);
    assert_eq!(cpu.pc, 0x0101);
    step(&mut cpu, &mut bus);
    step(&mut cpu, &mut bus);
    assert_eq!(
        bus.take_log(),
        [Cycle::Read(0x0100, HALT), Cycle::Idle, Cycle::Idle]
    );
    // IME off: the interrupt ends HALT and the next instruction runs in the same step.
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.mode(), CpuMode::Running);
    assert_eq!(bus.take_log(), [Cycle::Read(0x0101, INC_A)]);
    assert_eq!((cpu.a, cpu.pc), (1, 0x0102));
    assert_eq!(bus.interrupt_flag, 0x01, "not serviced");
}

/// `EI; HALT` with an interrupt already pending: IME is still off during HALT, so the HALT
/// bug happens; IME becomes 1 at the end of that step, and the next step dispatches with the
/// HALT itself as the return address (Pan Docs "halt bug"; AGE `ei-halt-dmgC-cgbBCE`,
/// verified on DMG and CGB).
#[test]
fn ei_halt_with_a_pending_interrupt_returns_to_the_halt() {
    let mut bus = FlatBus::with_program(0x0100, &[EI, HALT, NOP]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.mode(), CpuMode::Running);
    assert_eq!((cpu.halt_bug, cpu.ime), (1, 1));
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.pc, 0x0040);
    assert_eq!(cpu.halt_bug, 0);
    assert_eq!(bus.memory[0xCFFE], 0x01, "returns to the HALT");
}

#[test]
fn halt_bug_reads_the_next_byte_twice() {
    // IME off, interrupt pending: HALT does not halt; INC A is fetched twice.
    let mut bus = FlatBus::with_program(0x0100, &[HALT, INC_A, NOP]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.mode(), CpuMode::Running);
    assert_eq!((cpu.halt_bug, cpu.pc), (1, 0x0101));
    step(&mut cpu, &mut bus);
    assert_eq!((cpu.a, cpu.pc, cpu.halt_bug), (1, 0x0101, 0));
    step(&mut cpu, &mut bus);
    assert_eq!((cpu.a, cpu.pc), (2, 0x0102));
    step(&mut cpu, &mut bus);
    assert_eq!(cpu.pc, 0x0103);
    assert_eq!(
        bus.take_log(),
        [
            Cycle::Read(0x0100, HALT),
            Cycle::Read(0x0101, INC_A),
            Cycle::Read(0x0101, INC_A),
            Cycle::Read(0x0102, NOP)
        ]
    );
}

#[test]
fn halt_bug_on_an_operand_fetch() {
    // `ld a, $3C` after a bugged HALT: the opcode byte 0x3E is read again as the operand.
    let mut bus = FlatBus::with_program(0x0100, &[HALT, 0x3E, 0x3C]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    step(&mut cpu, &mut bus);
    assert_eq!((cpu.a, cpu.pc), (0x3E, 0x0102));
}

#[test]
fn stop_and_illegal_opcodes_idle_forever() {
    // STOP skips its second byte in a stopped M-cycle (Pan Docs' STOP chart)...
    let mut bus = FlatBus::with_program(0x0100, &[0x10, 0x00]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    step(&mut cpu, &mut bus);
    assert_eq!(
        (cpu.mode(), cpu.pc, bus.stops),
        (CpuMode::Stopped, 0x0102, 1)
    );
    step(&mut cpu, &mut bus);
    assert_eq!(
        bus.take_log(),
        [Cycle::Read(0x0100, 0x10), Cycle::Idle, Cycle::Idle]
    );
    // ... but not with an interrupt pending: the byte after it runs next.
    let mut bus = FlatBus::with_program(0x0100, &[0x10, 0x00]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    assert_eq!((cpu.mode(), cpu.pc), (CpuMode::Stopped, 0x0101));

    let mut bus = FlatBus::with_program(0x0100, &[0xDD, 0x00]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    cpu.ime = 1;
    step(&mut cpu, &mut bus);
    assert_eq!((cpu.mode(), cpu.pc), (CpuMode::Locked, 0x0101));
    bus.set_ie(0x01);
    bus.interrupt_flag = 0x01;
    step(&mut cpu, &mut bus);
    assert_eq!(bus.take_log(), [Cycle::Read(0x0100, 0xDD), Cycle::Idle]);
    assert_eq!(cpu.pc, 0x0101, "a locked CPU takes no interrupt");
}

#[test]
fn ld_b_b_is_a_breakpoint() {
    let mut bus = FlatBus::with_program(0x0100, &[0x40, 0x41]);
    let mut cpu = cpu_at(0x0100, 0xD000);
    step(&mut cpu, &mut bus);
    step(&mut cpu, &mut bus);
    assert_eq!(bus.breakpoints, 1);
    assert_eq!(bus.log.len(), 2, "the breakpoint costs no cycle");
}

/// Arbitrary bytes in `ime`/`mode_raw`/`halt_bug` (a State is any bit pattern) never panic.
#[test]
fn garbage_state_does_not_panic() {
    for raw in [0u8, 1, 2, 3, 4, 0x7F, 0xFF] {
        let mut bus = FlatBus::with_program(0x0000, &[0xFB; 16]);
        let mut cpu = cpu_at(0, 0);
        cpu.ime = raw;
        cpu.mode_raw = raw;
        cpu.halt_bug = raw;
        bus.set_ie(0xFF);
        bus.interrupt_flag = 0xFF;
        for _ in 0..8 {
            step(&mut cpu, &mut bus);
        }
    }
}

/// The disassembler's lengths agree with the bytes the executor consumes, for every opcode
/// that does not jump (JR with offset 0 lands on the next instruction either way). STOP is
/// the one deliberate difference: 2 bytes in assembly, 1 consumed by the CPU.
#[test]
fn disassembler_lengths_match_the_executor() {
    // RET/JP/CALL (conditional or not), RST, JP HL, RETI: the PC says nothing about length.
    let jumps = |op: u8| {
        ((0xC0..0xE0).contains(&op) && matches!(op & 0x07, 0x00 | 0x02 | 0x04 | 0x07))
            || matches!(
                op,
                0xC3 | 0xC9 | 0xCD | 0xD9 | 0xE7 | 0xE9 | 0xEF | 0xF7 | 0xFF
            )
    };
    for op in 0..=0xFFu8 {
        let (text, length) = backspin_core::disassemble(&[op, 0x00, 0x00], 0x0100);
        if text.starts_with("db ") || op == 0x10 || jumps(op) {
            continue;
        }
        let mut bus = FlatBus::with_program(0x0100, &[op, 0x00, 0x00]);
        let mut cpu = cpu_at(0x0100, 0xD000);
        step(&mut cpu, &mut bus);
        assert_eq!(cpu.pc, 0x0100 + u16::from(length), "{op:02X} {text}");
    }
}
