; model: CGB
; Square 1's sweep (NR10 $11: period 1, up, shift 1) from frequency $500: the first sweep
; clock (3rd DIV-APU event after a DIV write, 6,144 M-cycles) writes $780 and its second
; calculation overflows, turning the channel off. NR52 read at 48 M-cycle offsets around that
; event, single speed.
INCLUDE "hardware.inc"
    TITLE "SWEEP CLOCK"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $11
    ldh [rNR10], a
    ld a, $80
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $00
    ldh [rNR13], a
    ld a, $85
    ldh [rNR14], a
    ld bc, 862
    call ApuDelay
    ret
ProbeRead:
    ldh a, [rNR52]
    ret
Title:
    db "SWEEP CLOCK", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
