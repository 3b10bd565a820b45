; The command-line tests' battery cartridge (`crates/frontend/tests/cli.rs`,
; `crates/frontend/tests/state_cli.rs`): MBC1 with 8 KiB battery RAM. The test defines
; before including this file:
;   TITLE "..."          different titles are different games;
;   DEF VALUE EQU n      the byte written to $A000 over and over, or
;   DEF VALUE EQU -1     to idle without touching cartridge RAM.

INCLUDE "hardware.inc"

    CART_TYPE $03 ; MBC1+RAM+BATTERY
    RAM_SIZE $02 ; 8 KiB

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
IF VALUE >= 0
    ld a, $0A
    ld [$0000], a ; cartridge RAM on
.write:
    ld a, VALUE
    ld [$A000], a
    jr .write
ELSE
.idle:
    jr .idle
ENDC
