; model: CGB
; As sweep_negate_clear, but square 1 has already made a negate calculation and is restarted
; (same NR10 $1B) 3 to 26 M-cycles before NR10 is rewritten without negate. The restart forgets
; the earlier negate calculation until its own completes (sooner than a first trigger's).
INCLUDE "hardware.inc"
    TITLE "SWEEP NEG RESTR"
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
    ld a, $84
    ldh [rNR14], a
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
    db "SWEEP NEG RESTR", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
