; model: CGB
; sq1_trigger at double speed over 96 offsets (one M-cycle is one 2 MHz APU cycle).
INCLUDE "hardware.inc"
    TITLE "SQ1 TRIGGER DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "SQ1 TRIGGER DS", 0

INCLUDE "sq1_trigger.inc"
