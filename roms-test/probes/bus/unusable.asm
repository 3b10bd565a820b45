; model: DMG
; FEA0-FEFF on a DMG: reads 0 (24 addresses, 3 passes).
INCLUDE "hardware.inc"
    TITLE "UNUSABLE"

DEF DOUBLE_SPEED EQU 0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "title", ROM0
Title:
    db "UNUSABLE", 0

INCLUDE "unusable.inc"
