; model: CGB
; BCPD writes swept across the start and the end of mode 3: the write to the background palette is
; dropped in mode 3 but BCPS's auto-increment still steps (palette_mode3.inc).

    TITLE "BCPD MODE3"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rBCPS
DEF DATA_REG EQU rBCPD
DEF DOUBLE_SPEED EQU 0
DEF READ_DATA EQU 0
INCLUDE "palette_mode3.inc"

Title:
    db "BCPD MODE 3", 0
