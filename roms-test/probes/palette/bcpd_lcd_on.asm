; model: CGB
; BCPD writes at 64 M-cycles from the LCD switched on: line 0's mode 3, which no mode 2 precedes (palette_line.inc)

    TITLE "BCPD LCD ON"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rBCPS
DEF DATA_REG EQU rBCPD
DEF DOUBLE_SPEED EQU 0
DEF LCD_ON_LINE EQU 1
DEF SCX_VALUE EQU 0
DEF OBJECTS EQU 0
DEF BASE_DELAY EQU 0
DEF EXTRA_DELAY EQU 0
INCLUDE "palette_line.inc"

Title:
    db "BCPD LCD ON", 0
