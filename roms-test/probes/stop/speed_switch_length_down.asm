; model: CGB
; The APU's length counter across a switch back to single speed. Step s (0-15): at double
; speed, DIV is reset, square 2 is started with 12 length steps left, 512s M-cycles pass
; (two frame-sequencer periods in all), then STOP switches to single speed; after the
; switch's pause NR52 is polled (10 M-cycles a poll) until square 2 stops, and the number of
; polls is shown (high byte, low byte). Shows the DIV-APU events the switch's DIV reset and
; its pause take (DIV bit 13, then bit 12 at single speed).

INCLUDE "hardware.inc"

    TITLE "SPSW LEN DOWN"
    CGB_FLAG $C0

DEF DOWN EQU 1
DEF MEASURE EQU 0
DEF FINE_REPS EQU 0
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW LENGTH DOWN", 0
