; model: CGB
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun in the last M-cycle before
; palette RAM closes (line 10's mode 2); the screen captured while stopped shows a black
; screen.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 83
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
