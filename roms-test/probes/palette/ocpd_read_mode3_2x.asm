; model: CGB
; ocpd_read_mode3.asm at double speed (palette_mode3.inc with READ_DATA).

    TITLE "OCPD READ M3 2X"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rOCPS
DEF DATA_REG EQU rOCPD
DEF DOUBLE_SPEED EQU 1
DEF EXTRA_START EQU 135
DEF EXTRA_END EQU 178
DEF READ_DATA EQU 1
INCLUDE "palette_mode3.inc"

Title:
    db "OCPD READ MODE 3 2X", 0
