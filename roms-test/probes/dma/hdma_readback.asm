; model: CGB
; HDMA5 read-back around the first block of an HBlank VRAM DMA (4 blocks), started in
; mode 2 of line 10: HDMA5 is read at 32 consecutive M-cycles across the start of that
; line's HBlank. It reads $83 until the block, $82 after it; a read that falls in the block
; waits for its end (the CPU is off the bus). Single speed; hdma_readback_2x.asm: double.

    TITLE "HDMA READBACK"
DEF DOUBLE_SPEED EQU 0
DEF BASE_DELAY EQU 0
INCLUDE "hdma_readback.inc"

Title:
    db "HDMA READBACK", 0
