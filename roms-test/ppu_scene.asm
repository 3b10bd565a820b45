; PPU scene: a scrolled background, a window sliding in, and 18 sprites, compared with a
; screenshot. It animates for ANIMATION_FRAMES frames, then holds still, so the picture
; does not depend on exactly when the screenshot is taken.
;
; What a correct DMG PPU shows (Pan Docs "LCD Control", "Scrolling", "Window", "OAM"):
;   - background tiles in four patterns, scrolled by SCX = 60, SCY = 30, with a title
;   - the window from line 112 (WY) and column 0 (WX = 7), solid colour 2 with text
;   - a row of 12 arrows on one line: only the first 10 in OAM order appear (10 per line)
;   - four balls: palette OBP0, X-flip, Y-flip with OBP1, and one behind the background
;     (visible only over background colour 0)
;   - two overlapping balls: the one with the smaller X is drawn on top
; OAM is filled by OAM DMA from a shadow copy each frame.

INCLUDE "hardware.inc"

    TITLE "BS PPU SCENE"

DEF ANIMATION_FRAMES EQU 60
DEF TILE_PATTERNS    EQU 3 ; four background patterns from here
DEF TILE_WINDOW      EQU 7
DEF TILE_ARROW       EQU 8
DEF TILE_BALL        EQU 9

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
    call LoadFont
    ld hl, _TILES0 + TILE_PATTERNS * 16
    ld de, Tiles
    ld bc, Tiles.end - Tiles
    call MemCopy
    call ClearScreen
    ; background: pattern (x + 2y) & 3 everywhere, then a title
    ld hl, _SCRN0
    ld d, 0
.row:
    ld e, 0
.column:
    ld a, d
    add a
    add e
    and 3
    add TILE_PATTERNS
    ld [hl+], a
    inc e
    ld a, e
    cp 32
    jr nz, .column
    inc d
    ld a, d
    cp 32
    jr nz, .row
    ld hl, _SCRN0 + 32 * 8 + 4
    ld de, Title
    call Print
    ; window: solid, with a line of text
    ld hl, _SCRN1
    ld bc, 32 * 4
    ld e, TILE_WINDOW
    call MemSet
    ld hl, _SCRN1 + 32 + 1
    ld de, WindowText
    call Print
    ; sprites: the table into shadow OAM, the rest hidden (Y = 0)
    ld hl, wShadowOam
    ld bc, 160
    ld e, 0
    call MemSet
    ld hl, wShadowOam
    ld de, Sprites
    ld bc, Sprites.end - Sprites
    call MemCopy
    ; OAM DMA must run from HRAM
    ld hl, hDma
    ld de, DmaRoutine
    ld bc, DmaRoutine.end - DmaRoutine
    call MemCopy
    call hDma
    ; registers
    xor a
    ldh [hFrame], a
    ldh [hVBlank], a
    ldh [rSCX], a
    ldh [rSCY], a
    ld a, 112
    ldh [rWY], a
    ld a, 7 + 2 * ANIMATION_FRAMES
    ldh [rWX], a
    ld a, %11100100
    ldh [rBGP], a
    ldh [rOBP0], a
    ld a, %00011011
    ldh [rOBP1], a
    ld a, IEF_VBLANK
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ld a, LCDCF_ON | LCDCF_WIN9C00 | LCDCF_WINON | LCDCF_BG8000 | LCDCF_OBJON | LCDCF_BGON
    ldh [rLCDC], a
    ei

MainLoop:
    call WaitVBlank
    call hDma
    ldh a, [hFrame]
    cp ANIMATION_FRAMES
    jr nc, MainLoop
    inc a
    ldh [hFrame], a
    ldh a, [rSCX] ; SCX += 1
    inc a
    ldh [rSCX], a
    ldh a, [hFrame] ; SCY += 1 on even frames
    rrca
    jr c, .window
    ldh a, [rSCY]
    inc a
    ldh [rSCY], a
.window: ; WX -= 2
    ldh a, [rWX]
    sub 2
    ldh [rWX], a
    jr MainLoop

VBlank:
    push af
    ld a, 1
    ldh [hVBlank], a
    pop af
    reti

; Copied to HRAM: the CPU can only reach HRAM while OAM DMA runs.
DmaRoutine:
    ld a, HIGH(wShadowOam)
    ldh [rDMA], a
    ld a, 40 ; 160 M-cycles
.wait:
    dec a
    jr nz, .wait
    ret
.end:

Tiles:
    db $F0, $00, $F0, $00, $F0, $00, $F0, $00, $0F, $00, $0F, $00, $0F, $00, $0F, $00 ; checker
    db $00, $80, $00, $40, $00, $20, $00, $10, $00, $08, $00, $04, $00, $02, $00, $01 ; stripes
    db $00, $00, $44, $44, $00, $00, $00, $00, $00, $00, $11, $11, $00, $00, $00, $00 ; dots
    db $FF, $00, $80, $00, $80, $00, $80, $00, $FF, $00, $08, $00, $08, $00, $08, $00 ; bricks
    db $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF, $00, $FF ; window
    db $10, $10, $14, $1C, $F2, $FE, $FD, $83, $83, $FD, $F6, $FA, $1C, $14, $10, $10 ; arrow
    db $3C, $3C, $7E, $42, $E7, $99, $DB, $A5, $DB, $A5, $E7, $99, $7E, $42, $3C, $3C ; ball
.end:

; OAM entries: Y + 16, X + 8, tile, attributes.
Sprites:
DEF N = 0
REPT 12 ; one line of 12 arrows at screen y 40; the last two are over the limit
    db 40 + 16, 8 + 12 * N + 8, TILE_ARROW, 0
DEF N = N + 1
ENDR
    db 72 + 16, 16 + 8, TILE_BALL, 0
    db 72 + 16, 40 + 8, TILE_ARROW, OAMF_XFLIP
    db 72 + 16, 64 + 8, TILE_ARROW, OAMF_YFLIP | OAMF_PAL1
    db 72 + 16, 88 + 8, TILE_BALL, OAMF_PRI
    db 92 + 16, 104 + 8, TILE_BALL, OAMF_PAL1 ; drawn below the next one (larger X)
    db 94 + 16, 100 + 8, TILE_BALL, 0
.end:

Title:
    db "BACKSPIN PPU", 0
WindowText:
    db "WINDOW  WX=7 WY=112", 0

SECTION "shadow OAM", WRAM0[$C100]
wShadowOam: ds 160

SECTION "scene variables", HRAM
hDma: ds DmaRoutine.end - DmaRoutine
hFrame: ds 1

    INCLUDE "include/common.inc"
