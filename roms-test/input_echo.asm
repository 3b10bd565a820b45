; Input echo: shows the joypad on screen and logs every change to battery RAM.
;
; Each frame, right after VBlank starts, the pad is read once. When it differs from the
; previous frame's, an entry is appended to the log in cartridge RAM (MBC1, bank 0):
;   $A000  "ECHO"                 magic, written at power-on (the log restarts each boot)
;   $A004  count, u16 LE          entries so far (stops growing at LOG_CAPACITY)
;   $A010  entries, 4 bytes each: frame (u16 LE, VBlanks since power-on), buttons
;                                 (1 = pressed, backspin_core::Buttons order), $EC
; Rewind and replay tests drive it with random input and compare states and this log.

INCLUDE "hardware.inc"

    TITLE "BS INPUT ECHO"
    CART_TYPE $03 ; MBC1+RAM+BATTERY
    RAM_SIZE $02  ; 8 KiB

DEF LOG_MAGIC    EQU $A000
DEF LOG_COUNT    EQU $A004
DEF LOG_ENTRIES  EQU $A010
DEF LOG_CAPACITY EQU ($C000 - LOG_ENTRIES) / 4
DEF TILE_UP      EQU 1 ; an empty box
DEF TILE_DOWN    EQU 2 ; a filled box
DEF PAD_ROW      EQU 4 ; first of the eight button rows
DEF BOX_COLUMN   EQU 10

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
    ld hl, _TILES0 + TILE_UP * 16
    ld de, BoxTiles
    ld bc, BoxTiles.end - BoxTiles
    call MemCopy
    call ClearScreen
    ld de, Labels
.label: ; Labels: map address (dw), zero-terminated text, ...; a zero address ends it
    ld a, [de]
    ld l, a
    inc de
    ld a, [de]
    ld h, a
    inc de
    or l
    jr z, .labels_done
    call Print
    inc de
    jr .label
.labels_done:
    ; the log
    ld a, $0A
    ld [RAMG], a
    ld hl, LOG_MAGIC
    ld de, Magic
    ld bc, 6 ; the magic and a zero count
    call MemCopy
    ; variables
    xor a
    ldh [hFrame], a
    ldh [hFrame + 1], a
    ldh [hPrevious], a
    call DrawPad
    call StartLcdWithVBlank

MainLoop:
    call WaitVBlank
    call ReadPad
    ld hl, hPrevious
    cp [hl]
    jr z, .draw
    ld [hl], a
    call LogChange
.draw:
    ldh a, [hPrevious]
    call DrawPad
    jr MainLoop

; Counts frames; the main loop waits for hVBlank.
VBlank:
    push af
    push hl
    ld a, 1
    ldh [hVBlank], a
    ld hl, hFrame
    inc [hl]
    jr nz, .done
    inc hl
    inc [hl]
.done:
    pop hl
    pop af
    reti

; Appends (hFrame, a) to the log unless it is full.
LogChange:
    ld c, a
    ld a, [LOG_COUNT]
    ld l, a
    ld a, [LOG_COUNT + 1]
    ld h, a
    ld a, l
    sub LOW(LOG_CAPACITY)
    ld a, h
    sbc HIGH(LOG_CAPACITY)
    ret nc ; count >= capacity
    push hl
    add hl, hl
    add hl, hl
    ld de, LOG_ENTRIES
    add hl, de
    ldh a, [hFrame]
    ld [hl+], a
    ldh a, [hFrame + 1]
    ld [hl+], a
    ld a, c
    ld [hl+], a
    ld [hl], $EC
    pop hl
    inc hl
    ld a, l
    ld [LOG_COUNT], a
    ld a, h
    ld [LOG_COUNT + 1], a
    ret

; Draws the buttons in a as boxes, the frame counter, the change count and the pad byte.
; Runs at the start of VBlank: well inside its 1,140 M-cycles.
DrawPad:
    ld e, a
    ld hl, _SCRN0 + 32 * PAD_ROW + BOX_COLUMN
    ld bc, 32
    ld d, 8
.button:
    rrca
    ld [hl], TILE_UP
    jr nc, .next
    ld [hl], TILE_DOWN
.next:
    add hl, bc
    dec d
    jr nz, .button
    ld hl, _SCRN0 + 32 * 14 + 8
    ldh a, [hFrame + 1]
    call PrintHex
    ldh a, [hFrame]
    call PrintHex
    ld hl, _SCRN0 + 32 * 15 + 8
    ld a, [LOG_COUNT + 1]
    call PrintHex
    ld a, [LOG_COUNT]
    call PrintHex
    ld hl, _SCRN0 + 32 * 16 + 8
    ld a, e
    jp PrintHex

BoxTiles:
    db $FF, $FF, $81, $81, $81, $81, $81, $81, $81, $81, $81, $81, $81, $81, $FF, $FF
    db $FF, $FF, $FF, $81, $FF, $BD, $FF, $BD, $FF, $BD, $FF, $BD, $FF, $81, $FF, $FF
.end:

Magic:
    db "ECHO", 0, 0

Labels:
    dw _SCRN0 + 32 * 1 + 5
    db "INPUT ECHO", 0
    dw _SCRN0 + 32 * (PAD_ROW + 0) + 2
    db "RIGHT", 0
    dw _SCRN0 + 32 * (PAD_ROW + 1) + 2
    db "LEFT", 0
    dw _SCRN0 + 32 * (PAD_ROW + 2) + 2
    db "UP", 0
    dw _SCRN0 + 32 * (PAD_ROW + 3) + 2
    db "DOWN", 0
    dw _SCRN0 + 32 * (PAD_ROW + 4) + 2
    db "A", 0
    dw _SCRN0 + 32 * (PAD_ROW + 5) + 2
    db "B", 0
    dw _SCRN0 + 32 * (PAD_ROW + 6) + 2
    db "SELECT", 0
    dw _SCRN0 + 32 * (PAD_ROW + 7) + 2
    db "START", 0
    dw _SCRN0 + 32 * 14 + 1
    db "FRAME $", 0
    dw _SCRN0 + 32 * 15 + 1
    db "LOG   $", 0
    dw _SCRN0 + 32 * 16 + 1
    db "PAD   $", 0
    dw 0

SECTION "echo variables", HRAM
hFrame: ds 2    ; VBlanks since the LCD was turned on, u16 LE
hPrevious: ds 1 ; the pad as last read

    INCLUDE "include/common.inc"
