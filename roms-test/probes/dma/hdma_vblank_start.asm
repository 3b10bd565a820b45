; model: CGB
; hdma_line_end across the end of line 143 (mode 0 into VBlank).

    TITLE "HDMA VBLANK"
DEF DOUBLE_SPEED EQU 0
DEF BASE_DELAY EQU 50
DEF LINE EQU 143
DEF EXTRA_DELAY EQU 0
INCLUDE "hdma_mode0_start.inc"

Title:
    db "HDMA VBLANK", 0
