; model: CGB
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun one M-cycle later, in line 9's
; mode 0; the screen captured while stopped shows a black screen.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 14
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
