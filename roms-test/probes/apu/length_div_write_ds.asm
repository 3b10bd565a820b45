; model: CGB
; length_div_write at double speed: a DIV write while DIV bit 5 is set is a DIV-APU event
; and clocks the length counter; the write swept over 48 M-cycle offsets around the moment
; bit 5 first sets.
INCLUDE "hardware.inc"
    TITLE "LEN DIV WR DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $3F
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $C7
    ldh [rNR14], a
    ld bc, 280
    call ApuDelay
    ret
ProbeRead:
    ldh [rDIV], a
    ldh a, [rNR52]
    ret
Title:
    db "LEN DIV WR DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
