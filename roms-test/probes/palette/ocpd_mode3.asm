; model: CGB
; OCPD writes swept across the start and the end of mode 3: the write to the object palette is
; dropped in mode 3 but OCPS's auto-increment still steps (palette_mode3.inc).

    TITLE "OCPD MODE3"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rOCPS
DEF DATA_REG EQU rOCPD
DEF DOUBLE_SPEED EQU 0
DEF READ_DATA EQU 0
INCLUDE "palette_mode3.inc"

Title:
    db "OCPD MODE 3", 0
