; model: CGB
; hdma_lcd_off.asm at double speed: the LCD switched off at 16 consecutive M-cycles across the
; end of mode 3 while an HBlank transfer runs, and transfers started with the LCD off
; (hdma_lcd_off.inc).

    TITLE "HDMA LCD OFF 2X"
DEF DOUBLE_SPEED EQU 1
DEF OFF_DELAY EQU 64
INCLUDE "hdma_lcd_off.inc"

Title:
    db "HDMA LCD OFF 2X", 0
