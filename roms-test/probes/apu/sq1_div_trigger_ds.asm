; model: CGB
; Square 1 (frequency $7FC, duty 50 %) triggered right after a DIV write at 96 M-cycle offsets,
; double speed (one 2 MHz APU cycle each); PCM12 read at one fixed time (after every trigger). Shows the first step's delay
; against the APU's clock when DIV was just reset (the alignment of the trigger against DIV).
INCLUDE "hardware.inc"
    TITLE "SQ1 DIV TRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "SQ1 DIV TRIG DS", 0

INCLUDE "sq1_div_trigger.inc"
