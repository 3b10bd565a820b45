; model: DMG
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun at the start of line 145
; (VBlank); the screen captured while stopped shows a blank LCD (shade 0, white, whatever BGP
; maps colour 0 to).

INCLUDE "hardware.inc"

    TITLE "STOP LCD"

DEF STOP_LINE EQU 145
DEF STOP_DELAY EQU 0
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
