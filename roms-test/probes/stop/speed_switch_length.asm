; model: CGB
; The APU's length counter across a switch to double speed. Step s (0-15): at single speed,
; DIV is reset, square 2 is started with 12 length steps left, 256s M-cycles pass (two
; frame-sequencer periods in all), then STOP switches to double speed; after the switch's
; pause NR52 is polled (10 M-cycles a poll) until square 2 stops, and the number of polls is
; shown (high byte, low byte), then the CPU switches back. Shows the DIV-APU events the
; switch's DIV reset and its pause take (DIV bit 12, then bit 13 at double speed).

INCLUDE "hardware.inc"

    TITLE "SPSW LENGTH"
    CGB_FLAG $C0

DEF DOWN EQU 0
DEF MEASURE EQU 0
DEF FINE_REPS EQU 0
INCLUDE "speed_switch_length.inc"

Title:
    db "SPSW LENGTH", 0
