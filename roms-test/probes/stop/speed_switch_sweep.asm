; model: CGB
; Channel 1's sweep clock across a switch to double speed (speed_switch_length.inc): square 1
; at $700 with sweep period 7 up by 1/8 (its first sweep step overflows and stops it), the
; switch at 16 points 256 M-cycles apart after a DIV reset, then NR52 polled until square 1
; stops. Shows the 128 Hz sweep clock's count through the switch.

INCLUDE "hardware.inc"

    TITLE "SPSW SWEEP"
    CGB_FLAG $C0

DEF DOWN EQU 0
DEF MEASURE EQU 2
DEF FINE_REPS EQU 0
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW SWEEP", 0
