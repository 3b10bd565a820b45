; model: CGB
; noise_divisor at double speed (96 offsets).
INCLUDE "hardware.inc"
    TITLE "NOISE DIVISOR D"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "NOISE DIVISOR DS", 0

INCLUDE "noise_divisor.inc"
