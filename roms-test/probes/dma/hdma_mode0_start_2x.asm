; model: CGB
; hdma_mode0_start.asm at double speed: an HBlank VRAM DMA (2 blocks) started at 32
; consecutive M-cycles across the end of mode 3 of line 10, HDMA5 read right after the write
; (hdma_mode0_start.inc).

    TITLE "HDMA MODE0 2X"
DEF DOUBLE_SPEED EQU 1
DEF BASE_DELAY EQU 56
DEF LINE EQU 10
DEF EXTRA_DELAY EQU 0
INCLUDE "hdma_mode0_start.inc"

Title:
    db "HDMA MODE0 START 2X", 0
