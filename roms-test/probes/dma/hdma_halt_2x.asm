; model: CGB
; hdma_halt.asm at double speed.

INCLUDE "hardware.inc"

    TITLE "HDMA HALT 2X"
    CGB_FLAG $C0

DEF DOUBLE_SPEED EQU 1
INCLUDE "hdma_halt.inc"

Title:
    db "HDMA HALT 2X", 0
