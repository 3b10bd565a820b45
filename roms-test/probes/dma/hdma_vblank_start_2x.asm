; model: CGB
; hdma_vblank_start at double speed (a line being 228 M-cycles).

    TITLE "HDMA VBLANK 2X"
DEF DOUBLE_SPEED EQU 1
DEF BASE_DELAY EQU 30
DEF LINE EQU 143
DEF EXTRA_DELAY EQU 128
INCLUDE "hdma_mode0_start.inc"

Title:
    db "HDMA VBLANK 2X", 0
