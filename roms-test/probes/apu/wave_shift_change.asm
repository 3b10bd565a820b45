; model: CGB
; NR32 (output level) written while the wave channel plays, at 48 M-cycle offsets, PCM34
; read right after each write: the new level applies to the sample already out at once.
INCLUDE "hardware.inc"
    TITLE "WAVE SHIFT"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "WAVE SHIFT CHANGE", 0

INCLUDE "wave_shift_change.inc"
