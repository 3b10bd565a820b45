; model: CGB
; noise_trigger at double speed over 96 offsets.
INCLUDE "hardware.inc"
    TITLE "NOISE TRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "NOISE TRIG DS", 0

INCLUDE "noise_trigger.inc"
