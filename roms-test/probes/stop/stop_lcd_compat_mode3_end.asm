; model: CGB
; stop_lcd_mode3_end in DMG compatibility mode (no CGB flag; stop_lcd.inc): STOP begun at the
; same point; the screen captured while stopped is black here, where CGB mode shows the picture
; (SameBoy agrees; why compatibility mode differs at this point is not explained).

INCLUDE "hardware.inc"

    TITLE "STOP LCD"

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 12
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
