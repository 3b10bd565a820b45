; model: CGB
; MBC5 with 32 KiB RAM on a CGB: RAMG $00, $0B, $0A, $1A, and bank 4 of 4 (wraps to 0): 12 reads each (open_bus.inc).
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"
    CGB_FLAG $C0
    CART_TYPE $1B
    RAM_SIZE $03
DEF DOUBLE_SPEED EQU 0
DEF CASES EQU 5

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "cases", ROM0
Cases:
    db $00, $00
    db $0A, $00
    db $0B, $00
    db $1A, $00
    db $0A, $04
Title:
    db "OPEN BUS MBC5", 0

INCLUDE "open_bus.inc"
