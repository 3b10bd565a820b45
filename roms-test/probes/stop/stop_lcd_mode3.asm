; model: CGB
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun in the first M-cycle with
; palette RAM closed (line 10's mode 3); the screen captured while stopped shows the picture,
; drawn on (Pan Docs: STOP in mode 3 keeps drawing).

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 84
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
