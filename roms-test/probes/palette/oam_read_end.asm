; model: CGB
; A OAM read swept over 32 consecutive M-cycles across the end of mode 3 of line 10, at
; single speed: where the PPU lets the CPU's reads through again (mode3_end_read.inc).

    TITLE "OAM READ END"
DEF ACCESS_ADDR EQU $FE00
DEF DOUBLE_SPEED EQU 0
DEF BASE_DELAY EQU 0
INCLUDE "mode3_end_read.inc"

Title:
    db "OAM READ END", 0
