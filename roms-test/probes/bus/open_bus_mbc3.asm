; model: DMG
; MBC3 with a clock (RAMG, RAMB pairs: $0A/$0D-$0F clock register numbers with no register, $00/$00 RAM disabled, $00/$08 clock disabled, $0A/$00 RAM): 12 reads each (open_bus.inc).
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"

    CART_TYPE $10
    RAM_SIZE $02
DEF DOUBLE_SPEED EQU 0
DEF CASES EQU 6

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "cases", ROM0
    INCLUDE "open_bus_mbc3_cases.inc"
Title:
    db "OPEN BUS MBC3", 0

INCLUDE "open_bus.inc"
