; model: CGB
; bcpd_mode3.asm at double speed: BCPD writes swept across the start and the end of mode 3,
; a line being twice as many M-cycles (palette_mode3.inc).

    TITLE "BCPD MODE3 2X"
INCLUDE "hardware.inc"
DEF INDEX_REG EQU rBCPS
DEF DATA_REG EQU rBCPD
DEF DOUBLE_SPEED EQU 1
DEF EXTRA_START EQU 135
DEF EXTRA_END EQU 178
DEF READ_DATA EQU 0
INCLUDE "palette_mode3.inc"

Title:
    db "BCPD MODE 3 2X", 0
