; model: CGB
; `wave_shift_change` at double speed (96 offsets).
INCLUDE "hardware.inc"
    TITLE "WAVE SHIFT DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "WAVE SHIFT CHANGE DS", 0

INCLUDE "wave_shift_change.inc"
