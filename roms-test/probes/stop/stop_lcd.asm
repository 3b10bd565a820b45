; model: CGB
; STOP with the LCD on and a picture shown, never woken (no input script): the screen is
; captured while the CPU is stopped. The picture: BG tiles 0-3 filled with colours 0-3 (BGP
; $E4, BG palette 0 four greys) in diagonal stripes ((x + y) & 3 per map cell). Three frames after
; the LCD is turned on (at the start of line 145, in VBlank), with the buttons selected in P1
; and none pressed, STOP. Shows what the stopped LCD displays.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    xor a
    ldh [rIE], a
    ldh [rIF], a
    ldh [rSCX], a
    ldh [rSCY], a
.wait_vblank:
    ldh a, [rLY]
    cp 144
    jr c, .wait_vblank
    xor a
    ldh [rLCDC], a
    ; tiles 0-3: every row's two bit planes give colour n
    ld hl, $8000
    ld c, 0
.tile:
    ld b, 8
.row:
    ld a, c
    and 1
    jr z, .lo0
    ld a, $FF
.lo0:
    ld [hl+], a
    ld a, c
    and 2
    jr z, .hi0
    ld a, $FF
.hi0:
    ld [hl+], a
    dec b
    jr nz, .row
    inc c
    ld a, c
    cp 4
    jr nz, .tile
    ; map: (x + y) & 3
    ld hl, $9800
    ld d, 0 ; y
.map_row:
    ld e, 0 ; x
.map_cell:
    ld a, d
    add e
    and 3
    ld [hl+], a
    inc e
    ld a, e
    cp 32
    jr nz, .map_cell
    inc d
    ld a, d
    cp 32
    jr nz, .map_row
    ld a, $E4
    ldh [rBGP], a
    ; BG palette 0: white, light grey, dark grey, black; attributes all 0
    ld a, $80 ; auto-increment, index 0
    ldh [rBCPS], a
    ld hl, Greys
    ld b, 8
.pal:
    ld a, [hl+]
    ldh [rBCPD], a
    dec b
    jr nz, .pal
    ld a, 1
    ldh [rVBK], a
    ld hl, $9800
    ld bc, $400
.attr:
    xor a
    ld [hl+], a
    dec bc
    ld a, b
    or c
    jr nz, .attr
    xor a
    ldh [rVBK], a
    ld a, LCDCF_ON | LCDCF_BG8000 | LCDCF_BGON
    ldh [rLCDC], a
    ld a, P1F_GET_BTN
    ldh [rP1], a
    ld c, 3
.frames:
    ldh a, [rLY]
    cp 144
    jr nz, .frames
.past:
    ldh a, [rLY]
    cp 144
    jr z, .past
    dec c
    jr nz, .frames
    stop
.after:
    jr .after

Greys:
    dw $7FFF, $56B5, $294A, $0000
