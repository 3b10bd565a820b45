; model: DMG
; MBC2: RAM disabled ($00, $0B) and enabled ($0A: the half-byte with the high nibble set): 12 reads each (open_bus.inc).
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"

    CART_TYPE $06
    RAM_SIZE $00
DEF DOUBLE_SPEED EQU 0
DEF CASES EQU 3

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "cases", ROM0
Cases:
    db $00, $00
    db $0A, $00
    db $0B, $00
Title:
    db "OPEN BUS MBC2", 0

INCLUDE "open_bus.inc"
