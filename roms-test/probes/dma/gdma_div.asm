; model: CGB
; A GDMA of 1 and 2 blocks with the LCD off, timed by DIV: DIV read at 8 consecutive
; M-cycles across its step after each (gdma_div.inc). Single speed.

    TITLE "GDMA DIV"
DEF DOUBLE_SPEED EQU 0
DEF BASE_1 EQU 44
DEF BASE_2 EQU 36
INCLUDE "gdma_div.inc"

Title:
    db "GDMA DIV", 0
