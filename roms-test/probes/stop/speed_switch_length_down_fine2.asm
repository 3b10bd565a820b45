; model: CGB
; speed_switch_length_down with the switch back to single speed at 16 points 32 M-cycles
; apart across the second point where the coarse probe's count changes (about 5750-6270
; M-cycles after the DIV reset at double speed).

INCLUDE "hardware.inc"

    TITLE "SPSW LEN DFINE2"
    CGB_FLAG $C0

DEF DOWN EQU 1
DEF MEASURE EQU 0
DEF FINE_REPS EQU 43
DEF FINE_EXTRA EQU 40
DEF FINE_SHIFT EQU 5
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW LEN DFINE2", 0
