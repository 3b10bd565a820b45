; model: CGB
; sweep_negate_clear at double speed over 32 offsets (one 2 MHz APU cycle each): negate
; cleared 3 to 34 M-cycles after a trigger with shift 3; NR52 read at once. Shows the
; trigger calculation's delay in APU cycles.
INCLUDE "hardware.inc"
    TITLE "SWEEP NEGCLR DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 32
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $1B
    ldh [rNR10], a
    ld a, $80
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $00
    ldh [rNR13], a
    ret
ProbeRead:
    ; hl: into the slide, 24 - k nops before its end
    ld a, [wOffset]
    ld e, a
    ld hl, .end
    ld a, l
    sub e
    ld l, a
    ld a, h
    sbc 0
    ld h, a
    ld c, LOW(rNR14)
    ld de, rNR10
    ld a, $84
    ldh [c], a
    jp hl
    REPT SWEEP_COUNT
    nop
    ENDR
.end:
    ld [de], a
    ldh a, [rNR52]
    ret
Title:
    db "SWEEP NEG CLEAR DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
