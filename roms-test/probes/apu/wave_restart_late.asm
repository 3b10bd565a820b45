; model: CGB
; The wave channel (frequency $7F8, 4 M-cycles per sample, ramp wave) retriggered at 48
; M-cycle offsets after its first trigger, single speed; PCM34 read at one fixed time after the
; first trigger (later than every retrigger). Shows the restart's start-up delay and the
; position reset, from inside the first start-up delay to several samples in.
INCLUDE "hardware.inc"
    TITLE "WAVE RESTART"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    ld a, $80
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $F8
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    ld a, $87
    ldh [rNR34], a
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
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE RESTART", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
