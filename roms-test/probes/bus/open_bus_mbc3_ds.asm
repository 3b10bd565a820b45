; model: CGB
; `open_bus_mbc3_cgb` at double speed: the byte fetched in the M-cycle before is still on the bus.
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"
    CGB_FLAG $C0
    CART_TYPE $10
    RAM_SIZE $02
DEF DOUBLE_SPEED EQU 1
DEF CASES EQU 6

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "cases", ROM0
Cases:
    db $0A, $0D
    db $0A, $0E
    db $0A, $0F
    db $00, $00
    db $00, $08
    db $0A, $00
Title:
    db "OPEN BUS MBC3 DS", 0

INCLUDE "open_bus.inc"
