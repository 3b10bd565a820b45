; model: CGB
; speed_switch_tima.inc with TIMA at 262 KHz (a tick every 4 M-cycles at single speed), both
; directions. Not a manifest row: at one offset in four Backspin counts one more than SameBoy
; (AGE's hardware-verified `spsw-tima-cgbE` pins Backspin's count; see the README).

INCLUDE "hardware.inc"

    TITLE "SPSW TIMA 262"
    CGB_FLAG $C0

DEF TIMA_CLOCK EQU TACF_262KHZ
INCLUDE "speed_switch_tima.inc"

Title:
    db "SPSW TIMA 262", 0
