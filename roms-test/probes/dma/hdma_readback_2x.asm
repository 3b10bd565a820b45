; model: CGB
; hdma_readback.asm at double speed: HDMA5 read at 32 consecutive M-cycles across the first
; HBlank block, a line being twice as many M-cycles.

    TITLE "HDMA READBCK 2X"
DEF DOUBLE_SPEED EQU 1
DEF BASE_DELAY EQU 56
INCLUDE "hdma_readback.inc"

Title:
    db "HDMA READBACK 2X", 0
