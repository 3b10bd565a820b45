; model: CGB
; gdma_duration.asm at double speed: the same sweep, a line being twice as many M-cycles.

    TITLE "GDMA DURATN 2X"
DEF DOUBLE_SPEED EQU 1
INCLUDE "gdma_duration.inc"
