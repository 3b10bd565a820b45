; model: CGB
; ocpd_mode3.asm at double speed: OCPD writes swept across the start and the end of mode 3,
; a line being twice as many M-cycles (palette_mode3.inc).

    TITLE "OCPD MODE3 2X"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rOCPS
DEF DATA_REG EQU rOCPD
DEF DOUBLE_SPEED EQU 1
DEF EXTRA_START EQU 135
DEF EXTRA_END EQU 178
DEF READ_DATA EQU 0
INCLUDE "palette_mode3.inc"

Title:
    db "OCPD MODE 3 2X", 0
