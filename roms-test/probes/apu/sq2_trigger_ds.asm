; model: CGB
; sq2_trigger at double speed over 96 offsets (one M-cycle is one 2 MHz APU cycle): the
; trigger delay and the duty step's phase against the APU clock.
INCLUDE "hardware.inc"
    TITLE "SQ2 TRIGGER DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "SQ2 TRIGGER DS", 0

INCLUDE "sq2_trigger.inc"
