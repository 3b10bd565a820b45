; The save-state tests' cartridge (`crates/core/tests/state_file.rs`): MBC1 with 32 KiB
; battery RAM whose program increments $C000-$C0FF forever and copies each byte to
; cartridge RAM, so states differ from frame to frame. The test sets the title (`TITLE`)
; before including this file: different titles are different games.

INCLUDE "hardware.inc"

    CART_TYPE $03 ; MBC1+RAM+BATTERY
    RAM_SIZE $03 ; 32 KiB

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    ld a, $0A
    ld [$0000], a ; cartridge RAM on
    ld hl, $C000
.loop:
    inc [hl]
    ld a, [hl]
    ld [$A000], a
    inc l
    jr .loop
