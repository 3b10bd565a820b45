; model: CGB
; `open_bus_mbc3` on a CGB: the reads from work RAM meet $FF (work RAM has its own bus).
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"
    CGB_FLAG $C0
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
    db "OPEN BUS MBC3 CGB", 0

INCLUDE "open_bus.inc"
