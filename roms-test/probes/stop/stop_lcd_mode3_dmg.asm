; model: DMG
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun in line 10's mode 3; the
; screen captured while stopped shows a blank LCD.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 100
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
