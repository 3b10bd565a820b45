; CGB palette: a CGB-only cartridge (header $0143 = $C0) that fills two background palettes
; through BCPS/BCPD and colours the screen with them, for the player's colour test
; (crates/frontend/tests/gui_colour.rs) and as a picture to look at.
;
; What a CGB shows (Pan Docs "LCD Color Palettes (CGB only)", "VRAM Banks", "BG Map
; Attributes"): four vertical bands, colours 0-3 of a palette from left to right; the top
; nine tile rows use palette 0 (white, red, green, blue), the bottom nine palette 1
; (yellow, magenta, cyan, black), chosen per tile by the attribute map in VRAM bank 1.
; On a DMG the palettes and VRAM bank 1 do not exist: four gray bands (BGP $E4), both halves alike.

INCLUDE "hardware.inc"

    TITLE "BS CGB PALETTE"
    CGB_FLAG $C0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff
    ; palettes 0 and 1: 16 bytes from index 0, auto-incrementing
    ld a, $80
    ldh [rBCPS], a
    ld hl, Palettes
    ld b, Palettes.end - Palettes
.palette:
    ld a, [hl+]
    ldh [rBCPD], a
    dec b
    jr nz, .palette
    ; tiles 0-3: solid colours 0-3
    ld hl, _TILES0
    ld de, Tiles
    ld bc, Tiles.end - Tiles
    call MemCopy
    ; attribute map (bank 1): palette 0 for the top nine rows, palette 1 below. First: a DMG
    ; ignores VBK, and the tile map written next replaces these bytes there.
    ld a, 1
    ldh [rVBK], a
    ld hl, _SCRN0
    ld bc, 9 * 32
    ld e, 0
    call MemSet
    ld bc, 9 * 32
    ld e, 1
    call MemSet
    xor a
    ldh [rVBK], a
    ; tile map (bank 0): every row is the four bands
    ld hl, _SCRN0
    ld a, 18
.row:
    push af
    ld de, Row
    ld bc, 32
    call MemCopy
    pop af
    dec a
    jr nz, .row
    ; a DMG (or `--model dmg`) ignores the palettes above: four gray shades via BGP instead
    ld a, %11100100
    ldh [rBGP], a
    ld a, LCDCF_ON | LCDCF_BG8000 | LCDCF_BGON
    ldh [rLCDC], a
.forever:
    jr .forever

Palettes:
    dw $7FFF, $001F, $03E0, $7C00 ; white, red, green, blue
    dw $03FF, $7C1F, $7FE0, $0000 ; yellow, magenta, cyan, black
.end:

Tiles:
    db $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00
    db $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00
    db $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF
    db $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF
.end:

Row:
    db 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3
    db 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

    INCLUDE "include/common.inc"
