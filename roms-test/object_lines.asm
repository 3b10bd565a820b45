; Objects on every visible line, moved one column right each frame, so that over the frames
; every object passes every X: left of the screen and in its first tile (X 0..=7, with the
; X=0 wait), in the line's last tiles (X 152..=167), past the right edge and, with a fine
; scroll, due left of the screen again (X 249..=255). SCX counts the frames (every fine
; scroll), SCY half of them; objects share tiles (several in one background tile), and
; their attributes mix both palettes, both flips and the behind-background bit. LCDC moves
; through 8x16 objects, objects disabled, the background disabled and the window (WY 40,
; WX moving across the screen and past its edges). The CPU halts between VBlanks, so
; mode 3 runs in whole catch-ups (`ppu/whole_mode3.rs`, `ppu/object_line.rs`).
; No pass criterion: the fast-path oracle (`crates/core/tests/fast_paths/`) compares runs.

INCLUDE "hardware.inc"

    TITLE "BS OBJECT LINES"

DEF OBJECTS EQU 40

SECTION "vblank vector", ROM0[$40]
    jp VBlank

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff
    ; tiles 1..=4: four different rows of both planes
    ld hl, _VRAM + 16
    ld de, Tiles
    ld bc, Tiles.end - Tiles
    call MemCopy
    ; background map: tile (column + row) mod 4 + 1
    ld hl, _SCRN0
    ld d, 0
.row:
    ld e, 0
.column:
    ld a, d
    add e
    and 3
    inc a
    ld [hl+], a
    inc e
    ld a, e
    cp 32
    jr nz, .column
    inc d
    ld a, d
    cp 32
    jr nz, .row
    ; objects: Y, X, tile, attributes from the table
    ld hl, _OAMRAM
    ld de, Objects
    ld bc, OBJECTS * 4
    call MemCopy
    xor a
    ldh [hFrame], a
    ldh [rSCX], a
    ldh [rSCY], a
    ld a, 40
    ldh [rWY], a
    ld a, %11100100
    ldh [rBGP], a
    ld a, %11010010
    ldh [rOBP0], a
    ld a, %00011011
    ldh [rOBP1], a
    ld a, IEF_VBLANK
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ld a, LCDCF_ON | LCDCF_BG8000 | LCDCF_OBJON | LCDCF_BGON
    ldh [rLCDC], a
    ei
.wait:
    halt
    nop
    jr .wait

; Each frame: every object one column right, the scroll and LCDC from the frame count.
VBlank:
    push af
    push bc
    push hl
    ldh a, [hFrame]
    inc a
    ldh [hFrame], a
    ld b, a
    ldh [rSCX], a
    srl a
    ldh [rSCY], a
    ld a, b
    add a
    add a
    add b
    ldh [rWX], a ; five columns a frame, across and past the screen
    ld hl, _OAMRAM + 1
    ld c, OBJECTS
.x:
    inc [hl]
    ld a, l
    add 4
    ld l, a
    dec c
    jr nz, .x
    ; LCDC: bits 5..=7 of the frame count pick the window, 8x16 objects and no objects;
    ; frames 8..=15 of every 64 blank the background
    ld c, LCDCF_ON | LCDCF_BG8000 | LCDCF_OBJON | LCDCF_BGON
    bit 5, b
    jr z, .no_window
    ld a, c
    or LCDCF_WINON | LCDCF_WIN9C00
    ld c, a
.no_window:
    bit 6, b
    jr z, .short
    ld a, c
    or LCDCF_OBJ16
    ld c, a
.short:
    ld a, b
    and %10111000
    cp %10111000
    jr nz, .objects_on
    ld a, c
    and %11111101 ; LCDCF_OBJON off
    ld c, a
.objects_on:
    ld a, b
    and %00111000
    cp %00001000
    jr nz, .background_on
    ld a, c
    and %11111110 ; LCDCF_BGON off
    ld c, a
.background_on:
    ld a, c
    ldh [rLCDC], a
    pop hl
    pop bc
    pop af
    reti

Tiles:
    db $FF, $00, $81, $7E, $C3, $3C, $E7, $18, $F0, $0F, $AA, $55, $00, $FF, $5A, $A5
    db $0F, $F0, $33, $CC, $55, $AA, $99, $66, $3C, $C3, $18, $E7, $81, $81, $42, $24
    db $80, $01, $40, $02, $20, $04, $10, $08, $08, $10, $04, $20, $02, $40, $01, $80
    db $AA, $AA, $55, $55, $FF, $00, $00, $FF, $F0, $F0, $0F, $0F, $CC, $33, $33, $CC
.end:

; Y, X, tile, attributes. Ten objects on most lines: some alone, some sharing a background
; tile or a column, some at the same X, whatever the scroll; some lines get more than ten.
Objects:
    db 16, 0, 1, $00
    db 16, 3, 2, $10
    db 16, 40, 3, $20
    db 16, 41, 4, $80
    db 16, 90, 1, $40
    db 16, 90, 2, $30
    db 16, 120, 3, $90
    db 16, 150, 4, $00
    db 16, 160, 1, $10
    db 16, 165, 2, $60
    db 20, 8, 3, $00
    db 20, 14, 4, $10
    db 20, 70, 1, $20
    db 20, 200, 2, $00
    db 20, 250, 3, $F0
    db 52, 1, 4, $00
    db 52, 9, 1, $10
    db 52, 17, 2, $80
    db 52, 25, 3, $00
    db 52, 33, 4, $20
    db 52, 41, 1, $00
    db 52, 49, 2, $40
    db 52, 57, 3, $10
    db 52, 65, 4, $00
    db 52, 73, 1, $90
    db 52, 81, 2, $00
    db 52, 89, 3, $00
    db 84, 100, 4, $00
    db 84, 104, 1, $10
    db 84, 108, 2, $20
    db 92, 60, 3, $00
    db 100, 130, 4, $30
    db 100, 133, 1, $00
    db 100, 136, 2, $80
    db 100, 255, 3, $00
    db 120, 7, 4, $00
    db 120, 7, 1, $10
    db 120, 7, 2, $20
    db 140, 159, 3, $40
    db 150, 240, 4, $00
.end:

SECTION "variables", HRAM
hFrame: ds 1

    INCLUDE "include/common.inc"
