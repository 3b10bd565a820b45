; model: CGB
; The envelope clock across a switch to double speed (speed_switch_length.inc): square 2
; from volume 0 up with envelope period 4, the switch at 16 points 256 M-cycles apart after a
; DIV reset, then PCM12 polled until a volume shows. Shows the 64 Hz envelope clock's count
; through the switch's DIV reset (bit 12's fall at single speed) and pause.

INCLUDE "hardware.inc"

    TITLE "SPSW ENV"
    CGB_FLAG $C0

DEF DOWN EQU 0
DEF MEASURE EQU 1
DEF FINE_REPS EQU 0
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW ENV", 0
