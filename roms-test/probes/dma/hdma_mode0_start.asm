; model: CGB
; An HBlank VRAM DMA (2 blocks) started at 32 consecutive M-cycles across the end of mode 3
; of line 10; HDMA5 is read right after the write. Started in mode 0 the first block runs at
; once ($80 read), started before it waits for the HBlank ($81 read). Single speed.

    TITLE "HDMA MODE0 STRT"
DEF DOUBLE_SPEED EQU 0
DEF BASE_DELAY EQU 0
DEF LINE EQU 10
DEF EXTRA_DELAY EQU 0
INCLUDE "hdma_mode0_start.inc"

Title:
    db "HDMA MODE0 START", 0
