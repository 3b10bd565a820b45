; model: CGB
; wave_retrigger at double speed over 96 offsets: the wave channel (frequency $7F8) retriggered
; after its first trigger, PCM34 read at once. Shows the restart's delay and the kept sample
; buffer in 2 MHz APU cycles.
INCLUDE "hardware.inc"
    TITLE "WAVE RETRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1
DEF FREQUENCY_LOW EQU $F8

SECTION "title", ROM0
Title:
    db "WAVE RETRIG DS", 0

INCLUDE "wave_retrigger.inc"
