; model: CGB
; HDMA5 written while an HBlank VRAM DMA runs. Case k (0-7): a 16-block transfer started in
; VBlank; at line 2 + k (polled, mode 2) HDMA5 is written: even k $10 + k (bit 7 clear: stops
; the transfer), odd k $A0 + k (bit 7 set: goes on with a new length). HDMA5 is read right
; after the write and again two lines later. Two results per case: $80 | the value written
; after a stop (the write loads the length counter; Pan Docs says the blocks left), the new
; length after a restart, less the blocks of the two lines that follow.

INCLUDE "hardware.inc"

    TITLE "HDMA STOP"
    CGB_FLAG $C0

DEF DOUBLE_SPEED EQU 0
INCLUDE "hdma_stop.inc"

Title:
    db "HDMA STOP", 0
