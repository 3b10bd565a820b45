; model: CGB
; speed_switch_envelope back to single speed: the switch at 16 points 512 M-cycles apart
; from double speed (speed_switch_length.inc). Shows the envelope clock through a DIV reset
; judged by bit 13.

INCLUDE "hardware.inc"

    TITLE "SPSW ENV DOWN"
    CGB_FLAG $C0

DEF DOWN EQU 1
DEF MEASURE EQU 1
DEF FINE_REPS EQU 0
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW ENV DOWN", 0
