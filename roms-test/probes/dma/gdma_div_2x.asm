; model: CGB
; gdma_div at double speed (a block being 16 M-cycles).

    TITLE "GDMA DIV 2X"
DEF DOUBLE_SPEED EQU 1
DEF BASE_1 EQU 35
DEF BASE_2 EQU 22
INCLUDE "gdma_div.inc"

Title:
    db "GDMA DIV 2X", 0
