; model: CGB
; `open_bus_rom_only` on a CGB at double speed.
INCLUDE "hardware.inc"
    TITLE "OPEN BUS"
    CGB_FLAG $C0
    CART_TYPE $00
    RAM_SIZE $00
DEF DOUBLE_SPEED EQU 1
DEF CASES EQU 2

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "cases", ROM0
Cases:
    db $00, $00
    db $0A, $00
Title:
    db "OPEN BUS ROM ONLY DS", 0

INCLUDE "open_bus.inc"
