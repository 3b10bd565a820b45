; model: CGB
; length_div at double speed: the frame sequencer then follows DIV bit 5 (system counter bit
; 13), so its first event after a DIV write comes 4,096 M-cycles later; NR52 read at 48
; M-cycle offsets around it.
INCLUDE "hardware.inc"
    TITLE "LENGTH DIV DS"
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
    ld bc, 570
    call ApuDelay
    ret
ProbeRead:
    ldh a, [rNR52]
    ret
Title:
    db "LENGTH DIV DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
