; model: CGB
; Square 1's sweep (NR10 $11: period 1, up, shift 1) from frequency $500: its first sweep
; clock writes $780 and the second calculation overflows. Square 1 is restarted at $500 (NR13
; and NR14 rewritten) at 48 M-cycle offsets around that clock, single speed; NR52 read 80 M-cycles
; later. A restart before the clock is turned off by it; one after the clock's overflow check
; plays on (a restart reloads the sweep's shadow frequency).
INCLUDE "hardware.inc"
    TITLE "SWEEP RESTART"
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
    ld bc, 861
    call ApuDelay
    ret
ProbeRead:
    ld a, $00
    ldh [rNR13], a
    ld a, $85
    ldh [rNR14], a
    ld b, 20
.wait:
    dec b
    jr nz, .wait
    ldh a, [rNR52]
    ret
Title:
    db "SWEEP RESTART", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
