; model: CGB
; Wave RAM read (FF30) while the wave channel plays (frequency $7F8, ramp wave) at 48 M-cycle
; offsets after its trigger, single speed. On a CGB the read returns the byte the channel is
; reading: shows its position over time.
INCLUDE "hardware.inc"
    TITLE "WAVE RAM READ"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "WAVE RAM READ", 0

INCLUDE "wave_ram_read.inc"
