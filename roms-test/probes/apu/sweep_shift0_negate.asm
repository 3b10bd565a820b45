; model: CGB
; Square 1 with a negating sweep of shift 0 (NR10 $18: period 1, down) at $400: a trigger
; makes no calculation, the first sweep clock does. NR10 rewritten without negate ($10) at 48
; M-cycle offsets around that clock, single speed; NR52 read at once. Shows when the clock's
; negate calculation completes.
INCLUDE "hardware.inc"
    TITLE "SWEEP SHIFT0"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $18
    ldh [rNR10], a
    ld a, $80
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $00
    ldh [rNR13], a
    ld a, $84
    ldh [rNR14], a
    ld bc, 861
    call ApuDelay
    ret
ProbeRead:
    ld a, $10
    ldh [rNR10], a
    ldh a, [rNR52]
    ret
Title:
    db "SWEEP SHIFT0 NEGATE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
