; model: CGB
; Square 1 (frequency $7FC, duty 50 %) triggered right after a DIV write at 96 M-cycle offsets,
; double speed (one 2 MHz APU cycle each); PCM12 read at one fixed time (after every trigger). Shows the first step's delay
; against the APU's clock when DIV was just reset (the alignment of the trigger against DIV).
INCLUDE "hardware.inc"
    TITLE "SQ1 DIV TRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $80
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $FC
    ldh [rNR13], a
    ret
ProbeRead:
    ldh [rDIV], a
    ld a, $87
    ldh [rNR14], a
    ; then SWEEP_COUNT - k nops: the read comes at the same time for every k
    ld a, [wOffset]
    ld e, a
    ld d, 0
    ld hl, .slide
    add hl, de
    jp hl
.slide:
    REPT SWEEP_COUNT
    nop
    ENDR
    ldh a, [rPCM12]
    ret
Title:
    db "SQ1 DIV TRIG DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
