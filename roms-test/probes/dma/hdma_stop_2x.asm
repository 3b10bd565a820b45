; model: CGB
; hdma_stop.asm at double speed.

INCLUDE "hardware.inc"

    TITLE "HDMA STOP 2X"
    CGB_FLAG $C0

DEF DOUBLE_SPEED EQU 1
INCLUDE "hdma_stop.inc"

Title:
    db "HDMA STOP 2X", 0
