; model: CGB
; The wave channel triggered with its DAC off (frequency $7F8, ramp wave), the DAC turned on at
; 48 M-cycle offsets after the trigger, single speed, then retriggered and PCM34 read at one
; fixed time after the first trigger (later than every DAC-on). The countdown waits while the
; DAC is off and runs from the DAC-on, so the background reads (at the bus address) move
; with the offset.
INCLUDE "hardware.inc"
    TITLE "WAVE DACDLY"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    xor a
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $F8
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    ld a, $80
    ldh [rNR30], a
    ; then SWEEP_COUNT - k nops: the retrigger comes at the same time for every k
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
    ld a, $87
    ldh [rNR34], a
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE DAC ON DELAY", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
