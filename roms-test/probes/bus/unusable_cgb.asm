; model: CGB
; FEA0-FEFF on a CGB-E: the high nibble of the low address byte twice; writes ignored (24 addresses, 3 passes).
INCLUDE "hardware.inc"
    TITLE "UNUSABLE"
    CGB_FLAG $C0
DEF DOUBLE_SPEED EQU 0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "title", ROM0
Title:
    db "UNUSABLE CGB", 0

INCLUDE "unusable.inc"
