; model: CGB
; BCPD reads swept across the start and the end of mode 3: a read in mode 3 returns $FF and no read steps
; BCPS (palette_mode3.inc with READ_DATA).

    TITLE "BCPD READ M3"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rBCPS
DEF DATA_REG EQU rBCPD
DEF DOUBLE_SPEED EQU 0
DEF READ_DATA EQU 1
INCLUDE "palette_mode3.inc"

Title:
    db "BCPD READ MODE 3", 0
