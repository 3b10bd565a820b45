; model: CGB
; speed_switch_sweep back to single speed: the switch at 16 points 512 M-cycles apart from
; double speed (speed_switch_length.inc).

INCLUDE "hardware.inc"

    TITLE "SPSW SWEEP DOWN"
    CGB_FLAG $C0

DEF DOWN EQU 1
DEF MEASURE EQU 2
DEF FINE_REPS EQU 0
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW SWEEP DOWN", 0
