; model: CGB
; Square 1 (frequency $7FC, duty 50 %) triggered right after a DIV write at 48 M-cycle offsets,
; single speed; PCM12 read at one fixed time (after every trigger). Shows the first step's delay
; against the APU's clock when DIV was just reset (the alignment of the trigger against DIV).
INCLUDE "hardware.inc"
    TITLE "SQ1 DIV TRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "SQ1 DIV TRIGGER", 0

INCLUDE "sq1_div_trigger.inc"
