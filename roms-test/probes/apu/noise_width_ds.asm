; model: CGB
; noise_width at double speed (NR43 $00 to $08, 96 offsets).
INCLUDE "hardware.inc"
    TITLE "NOISE WIDTH DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "NOISE WIDTH DS", 0

INCLUDE "noise_width.inc"
