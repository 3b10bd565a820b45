; model: CGB
; `sq2_freq_high` at double speed (96 offsets, one 2 MHz APU cycle each).
INCLUDE "hardware.inc"
    TITLE "SQ2 FREQ HI DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1
DEF FIRST_DELAY EQU 2
DEF STEP_DELAY EQU 71

SECTION "title", ROM0
Title:
    db "SQ2 FREQ HIGH DS", 0

INCLUDE "sq2_freq_high.inc"
