; model: DMG
; MBC1 with 8 KiB RAM: RAMG $00, $0B (disabled), $0A, $1A (enabled: low 4 bits), bank 1 (RAM of 8 KiB repeats): 12 reads each (open_bus.inc).
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"

    CART_TYPE $03
    RAM_SIZE $02
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
    db $0A, $01
Title:
    db "OPEN BUS MBC1", 0

INCLUDE "open_bus.inc"
