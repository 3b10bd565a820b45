; model: CGB
; bcpd_lcd_on at double speed, across the start of line 0's mode 3 (palette_line.inc)

    TITLE "BCPD LCD ON 2X"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rBCPS
DEF DATA_REG EQU rBCPD
DEF DOUBLE_SPEED EQU 1
DEF LCD_ON_LINE EQU 1
DEF SCX_VALUE EQU 0
DEF OBJECTS EQU 0
DEF BASE_DELAY EQU 20
DEF EXTRA_DELAY EQU 0
INCLUDE "palette_line.inc"

Title:
    db "BCPD LCD ON 2X", 0
