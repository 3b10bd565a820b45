; model: CGB
; BCPD writes at 64 M-cycles across line 10's mode 3 with SCX 3 and 10 objects: the lock
; follows mode 3's length (palette_line.inc). Not a manifest row: SameBoy also drops step 42's
; write, in mode 0 (README).

    TITLE "BCPD SCX3 10OBJ"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rBCPS
DEF DATA_REG EQU rBCPD
DEF DOUBLE_SPEED EQU 0
DEF LCD_ON_LINE EQU 0
DEF SCX_VALUE EQU 3
DEF OBJECTS EQU 10
DEF BASE_DELAY EQU 30
DEF EXTRA_DELAY EQU 100
INCLUDE "palette_line.inc"

Title:
    db "BCPD SCX3 10OBJ", 0
