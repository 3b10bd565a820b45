; model: CGB
; wave_ram_write at double speed over 96 offsets: a write to FF3F while the wave channel plays
; (frequency $7F8, ramp wave) lands in the byte the channel is reading; the channel then stops and
; the probe shows which byte took the write.
INCLUDE "hardware.inc"
    TITLE "WAVE WRITE DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "WAVE WRITE DS", 0

INCLUDE "wave_ram_write.inc"
