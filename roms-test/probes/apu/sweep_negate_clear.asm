; model: CGB
; Square 1 triggered with a negating sweep (NR10 $1B: period 1, down, shift 3) at $400; NR10
; then rewritten without negate ($84: period 0, up) 3 to 26 M-cycles after the trigger, single
; speed; NR52 read at once. Clearing negate turns the channel off only once the trigger's
; calculation (in negate mode) has completed, a few cycles after the trigger.
INCLUDE "hardware.inc"
    TITLE "SWEEP NEG CLEAR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 24
DEF DOUBLE_SPEED EQU 0

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
    db "SWEEP NEG CLEAR", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
