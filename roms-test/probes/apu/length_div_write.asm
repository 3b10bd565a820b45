; model: CGB
; A DIV write as a DIV-APU event: square 1 with one length step left (length enabled), DIV
; written at 48 M-cycle offsets around the moment DIV bit 4 first sets (1,024 M-cycles after
; the previous DIV write), single speed; NR52 read right after. A write while bit 4 is set
; clocks the length counter and turns the channel off.
INCLUDE "hardware.inc"
    TITLE "LENGTH DIV WR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF SETUP_DELAY EQU 132

SECTION "title", ROM0
Title:
    db "LENGTH DIV WR", 0

INCLUDE "length_div_write.inc"
