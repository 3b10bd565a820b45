; model: CGB
; length_div at double speed: the frame sequencer then follows DIV bit 5 (system counter bit
; 13), so its first event after a DIV write comes 4,096 M-cycles later; NR52 read at 48
; M-cycle offsets around it.
INCLUDE "hardware.inc"
    TITLE "LENGTH DIV DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1
DEF SETUP_DELAY EQU 570

SECTION "title", ROM0
Title:
    db "LENGTH DIV DS", 0

INCLUDE "length_div.inc"
