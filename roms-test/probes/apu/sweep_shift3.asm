; model: CGB
; Square 1's sweep (NR10 $13: period 1, up, shift 3) from frequency $6C0: the first sweep
; clock (3rd DIV-APU event after a DIV write, 6,144 M-cycles) writes $798 and its second
; calculation overflows, turning the channel off; the check takes 2 1 MHz cycles longer than
; sweep_clock's. NR52 read at 48 M-cycle offsets around that event, single speed.
INCLUDE "hardware.inc"
    TITLE "SWEEP SHIFT3"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $13
    ldh [rNR10], a
    ld a, $80
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $C0
    ldh [rNR13], a
    ld a, $86
    ldh [rNR14], a
    ld bc, 862
    call ApuDelay
    ret
ProbeRead:
    ldh a, [rNR52]
    ret
Title:
    db "SWEEP SHIFT3", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
