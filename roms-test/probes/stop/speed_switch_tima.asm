; model: CGB
; The system counter's phase right after the speed switch through TIMA at 65 KHz (a tick
; every 16 M-cycles at single speed: the 16 offsets cover one period), both directions
; (speed_switch_tima.inc). Shows that the switch's DIV reset and its pause (0x20000 clocks,
; TIMA counting on) leave the counter at the same phase whatever the offset, and which
; offsets the reset's falling edge adds a tick at. Three results per step.

INCLUDE "hardware.inc"

    TITLE "SPSW TIMA"
    CGB_FLAG $C0

DEF TIMA_CLOCK EQU TACF_65KHZ
INCLUDE "speed_switch_tima.inc"

Title:
    db "SPSW TIMA", 0
