; model: DMG
; No MBC, no RAM: every read of A000-BFFF meets the open bus (12 reads, twice).
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"

    CART_TYPE $00
    RAM_SIZE $00
DEF DOUBLE_SPEED EQU 0
DEF CASES EQU 2

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "cases", ROM0
Cases:
    db $00, $00
    db $0A, $00
Title:
    db "OPEN BUS ROM ONLY", 0

INCLUDE "open_bus.inc"
