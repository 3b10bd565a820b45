; model: CGB
; OCPD reads swept across the start and the end of mode 3: a read in mode 3 returns $FF and no read steps
; OCPS (palette_mode3.inc with READ_DATA).

    TITLE "OCPD READ M3"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rOCPS
DEF DATA_REG EQU rOCPD
DEF DOUBLE_SPEED EQU 0
DEF READ_DATA EQU 1
INCLUDE "palette_mode3.inc"

Title:
    db "OCPD READ MODE 3", 0
