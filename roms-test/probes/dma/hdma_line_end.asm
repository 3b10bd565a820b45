; model: CGB
; An HBlank VRAM DMA (2 blocks) started at 32 consecutive M-cycles across the end of line 10
; (mode 0 into line 11's mode 2); HDMA5 read right after the write: $80 where the first block
; ran at once (mode 0), $81 where it waits for the next HBlank. Single speed.

    TITLE "HDMA LINE END"
DEF DOUBLE_SPEED EQU 0
DEF BASE_DELAY EQU 50
DEF LINE EQU 10
DEF EXTRA_DELAY EQU 0
INCLUDE "hdma_mode0_start.inc"

Title:
    db "HDMA LINE END", 0
