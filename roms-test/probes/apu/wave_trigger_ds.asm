; model: CGB
; wave_trigger at double speed over 96 offsets.
INCLUDE "hardware.inc"
    TITLE "WAVE TRIGGER DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "WAVE TRIGGER DS", 0

INCLUDE "wave_trigger.inc"
