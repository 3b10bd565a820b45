; model: CGB
; length_div_write at double speed: a DIV write while DIV bit 5 is set is a DIV-APU event
; and clocks the length counter; the write swept over 48 M-cycle offsets around the moment
; bit 5 first sets.
INCLUDE "hardware.inc"
    TITLE "LEN DIV WR DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1
DEF SETUP_DELAY EQU 280

SECTION "title", ROM0
Title:
    db "LEN DIV WR DS", 0

INCLUDE "length_div_write.inc"
