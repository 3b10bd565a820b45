; model: CGB
; `unusable_cgb` at double speed.
INCLUDE "hardware.inc"
    TITLE "UNUSABLE"
    CGB_FLAG $C0
DEF DOUBLE_SPEED EQU 1

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "title", ROM0
Title:
    db "UNUSABLE DS", 0

INCLUDE "unusable.inc"
