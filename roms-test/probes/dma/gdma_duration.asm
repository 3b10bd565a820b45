; model: CGB
; How long a general-purpose VRAM DMA keeps the CPU off the bus: at the start of line 10 a
; GDMA of one block (steps 0-23) or two blocks (steps 24-47) runs, then LY is read after a
; delay swept M-cycle by M-cycle across the end of the line. Where LY turns from $0A to $0B
; moves by the GDMA's length. Single speed (DOUBLE_SPEED 0) or double speed (1).

    TITLE "GDMA DURATION"
DEF DOUBLE_SPEED EQU 0
INCLUDE "gdma_duration.inc"
