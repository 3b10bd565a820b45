; model: CGB
; speed_switch_length with the switch to double speed at 16 points 16 M-cycles apart across
; the first point where the coarse probe's count changes (about 1024 M-cycles after the DIV
; reset, DIV bit 12 rising): a switch with the bit high takes one more frame-sequencer step.

INCLUDE "hardware.inc"

    TITLE "SPSW LEN FINE1"
    CGB_FLAG $C0

DEF DOWN EQU 0
DEF MEASURE EQU 0
DEF FINE_REPS EQU 5
DEF FINE_EXTRA EQU 55
DEF FINE_SHIFT EQU 4
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW LEN FINE1", 0
