; model: CGB
; noise_retrigger at double speed over 96 offsets (NR43 $18): the restart's
; countdown by the 2 MHz alignment (odd alignments only exist at double speed).
INCLUDE "hardware.inc"
    TITLE "NOISE RETRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "NOISE RETRIG DS", 0

INCLUDE "noise_retrigger.inc"
