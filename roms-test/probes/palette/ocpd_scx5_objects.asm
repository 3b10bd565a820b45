; model: CGB
; OCPD writes at 64 M-cycles across line 10's mode 3 with SCX 5 and 4 objects: the lock follows mode 3's length (palette_line.inc)

    TITLE "OCPD SCX5 OBJ"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rOCPS
DEF DATA_REG EQU rOCPD
DEF DOUBLE_SPEED EQU 0
DEF LCD_ON_LINE EQU 0
DEF SCX_VALUE EQU 5
DEF OBJECTS EQU 4
DEF BASE_DELAY EQU 0
DEF EXTRA_DELAY EQU 92
INCLUDE "palette_line.inc"

Title:
    db "OCPD SCX5 OBJ", 0
