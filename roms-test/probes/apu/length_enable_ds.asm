; model: CGB
; length_enable at double speed: enabling square 1's length counter (one step left) at 48
; M-cycle offsets around the first DIV-APU event (DIV bit 5 falling) after a DIV write.
INCLUDE "hardware.inc"
    TITLE "LENGTH EN DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1
DEF SETUP_DELAY EQU 570

SECTION "title", ROM0
Title:
    db "LENGTH EN DS", 0

INCLUDE "length_enable.inc"
