; model: CGB
; hdma_lcd_on at double speed (line 0's first part being twice as many M-cycles).

    TITLE "HDMA LCD ON 2X"
DEF DOUBLE_SPEED EQU 1
DEF BASE_DELAY EQU 24
INCLUDE "hdma_lcd_on.inc"

Title:
    db "HDMA LCD ON 2X", 0
