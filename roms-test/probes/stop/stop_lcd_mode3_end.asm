; model: CGB
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun in the last M-cycle of line
; 9's mode 3; the screen captured while stopped shows the picture.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 12
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
