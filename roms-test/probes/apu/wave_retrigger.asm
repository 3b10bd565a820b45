; model: CGB
; The wave channel (frequency $7F8, 4 M-cycles per sample, ramp wave) retriggered at 48
; M-cycle offsets after its first trigger, from inside its start-up delay to several samples
; in, single speed; PCM34 read 16 M-cycles after the retrigger. Shows the restart's delay, the
; position reset and the sample buffer kept.
INCLUDE "hardware.inc"
    TITLE "WAVE RETRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF FREQUENCY_LOW EQU $C0

SECTION "title", ROM0
Title:
    db "WAVE RETRIGGER", 0

INCLUDE "wave_retrigger.inc"
