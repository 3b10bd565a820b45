; model: CGB
; A OAM read swept over 32 consecutive M-cycles across the end of mode 3 of line 10, at
; double speed: where the PPU lets the CPU's reads through again (mode3_end_read.inc).

    TITLE "OAM READ END 2X"
DEF ACCESS_ADDR EQU $FE00
DEF DOUBLE_SPEED EQU 1
DEF BASE_DELAY EQU 56
INCLUDE "mode3_end_read.inc"

Title:
    db "OAM READ END 2X", 0
