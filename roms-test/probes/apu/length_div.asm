; model: CGB
; Square 1 with one length step left (NR11 $3F, length enabled at its trigger) against the
; frame sequencer: NR52 read at 48 M-cycle offsets around the first DIV-APU event after a DIV
; write (2,048 M-cycles), single speed. Shows the M-cycle at which the length counter turns
; the channel off.
INCLUDE "hardware.inc"
    TITLE "LENGTH DIV"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF SETUP_DELAY EQU 279

SECTION "title", ROM0
Title:
    db "LENGTH DIV", 0

INCLUDE "length_div.inc"
