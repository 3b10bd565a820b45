; model: CGB
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun in line 9's mode 0 and woken
; by a press, then again in line 10's mode 3 for good; the screen captured while stopped shows
; the picture: the wake-up ends the cut-off.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 40
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 1
DEF STOP_DELAY_AFTER_WAKE EQU 100

INCLUDE "stop_lcd.inc"
