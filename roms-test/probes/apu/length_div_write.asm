; model: CGB
; A DIV write as a DIV-APU event: square 1 with one length step left (length enabled), DIV
; written at 48 M-cycle offsets around the moment DIV bit 4 first sets (1,024 M-cycles after
; the previous DIV write), single speed; NR52 read right after. A write while bit 4 is set
; clocks the length counter and turns the channel off.
INCLUDE "hardware.inc"
    TITLE "LENGTH DIV WR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $3F
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $C7
    ldh [rNR14], a
    ld bc, 132
    call ApuDelay
    ret
ProbeRead:
    ldh [rDIV], a
    ldh a, [rNR52]
    ret
Title:
    db "LENGTH DIV WR", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
