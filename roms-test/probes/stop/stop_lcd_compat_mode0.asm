; model: CGB
; stop_lcd_mode0 in DMG compatibility mode (no CGB flag; stop_lcd.inc): STOP begun in line 9's
; mode 0; the screen captured while stopped is black, as in CGB mode.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 14
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
