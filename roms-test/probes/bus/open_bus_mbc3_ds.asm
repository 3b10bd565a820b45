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
    INCLUDE "open_bus_mbc3_cases.inc"
Title:
    db "OPEN BUS MBC3 DS", 0

INCLUDE "open_bus.inc"
