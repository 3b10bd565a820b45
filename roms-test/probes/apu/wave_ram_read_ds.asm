; model: CGB
; wave_ram_read at double speed over 96 offsets (one M-cycle is one 2 MHz APU cycle): FF30
; read while the wave channel plays returns the byte the channel is reading.
INCLUDE "hardware.inc"
    TITLE "WAVE READ DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "WAVE READ DS", 0

INCLUDE "wave_ram_read.inc"
