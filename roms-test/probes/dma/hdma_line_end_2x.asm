; model: CGB
; hdma_line_end at double speed (a line being 228 M-cycles).

    TITLE "HDMA LINE END 2"
DEF DOUBLE_SPEED EQU 1
DEF BASE_DELAY EQU 30
DEF LINE EQU 10
DEF EXTRA_DELAY EQU 128
INCLUDE "hdma_mode0_start.inc"

Title:
    db "HDMA LINE END 2X", 0
