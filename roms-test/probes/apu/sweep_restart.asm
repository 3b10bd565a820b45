; model: CGB
; Square 1's sweep restarted: as sweep_clock, but square 1 is retriggered (frequency $500
; again) at 48 M-cycle offsets around its first sweep clock, single speed, and NR52 read 80
; M-cycles later. Shows whether the restart reloads the sweep's timer and shadow frequency in
; time to avoid the overflow.
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
    ld bc, 1005
    call ApuDelay
    ret
ProbeRead:
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
