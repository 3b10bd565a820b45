; Battery counter: counts frames in battery-backed cartridge RAM, across power-ons, and
; shows the count, so save/load, crash and rewind tests can see what the game last wrote.
;
; Cartridge RAM (MBC5, bank 0), rewritten every frame right after VBlank starts:
;   $A000  "BCNT"           magic; when absent (a fresh cartridge) the RAM is cleared
;   $A004  frames, u32 LE   frames counted, over every power-on
;   $A008  boots, u16 LE    power-ons, this one included
;   $A00A  check, u8        XOR of the six bytes before it (frames and boots): a save
;                           whose check fails was not a whole snapshot of this RAM
; The screen shows both counters in hex.

INCLUDE "hardware.inc"

    TITLE "BS BATTERY CTR"
    CART_TYPE $1B ; MBC5+RAM+BATTERY
    RAM_SIZE $02  ; 8 KiB, one bank

DEF SAVE_MAGIC  EQU $A000
DEF SAVE_FRAMES EQU $A004
DEF SAVE_BOOTS  EQU $A008
DEF SAVE_CHECK  EQU $A00A

SECTION "vblank vector", ROM0[$40]
    jp SetVBlankFlag

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff
    call LoadFont
    call ClearScreen
    ld hl, _SCRN0 + 32 * 2 + 3
    ld de, Title
    call Print
    ld hl, _SCRN0 + 32 * 6 + 2
    ld de, FramesLabel
    call Print
    ld hl, _SCRN0 + 32 * 8 + 2
    ld de, BootsLabel
    call Print
    ; battery RAM, bank 0, enabled for good
    ld a, $0A
    ld [RAMG], a
    xor a
    ld [RAMB], a
    ld hl, SAVE_MAGIC
    ld de, Magic
    ld b, 4
.compare:
    ld a, [de]
    cp [hl]
    jr nz, .fresh
    inc de
    inc hl
    dec b
    jr nz, .compare
    jr .counted
.fresh:
    ld hl, SAVE_MAGIC
    ld de, Magic
    ld bc, 4
    call MemCopy
    ld hl, SAVE_FRAMES
    ld bc, SAVE_CHECK + 1 - SAVE_FRAMES
    ld e, 0
    call MemSet
.counted:
    ; one more boot
    ld hl, SAVE_BOOTS
    inc [hl]
    jr nz, .booted
    inc hl
    inc [hl]
.booted:
    call StoreCheck
    call Draw
    call StartLcdWithVBlank

MainLoop:
    call WaitVBlank
    ; frames += 1 (u32 LE), then the check byte
    ld hl, SAVE_FRAMES
    ld b, 4
.carry:
    inc [hl]
    jr nz, .counted
    inc hl
    dec b
    jr nz, .carry
.counted:
    call StoreCheck
    call Draw
    jr MainLoop

; SAVE_CHECK = XOR of SAVE_FRAMES..SAVE_BOOTS+1. Clobbers a, b, hl.
StoreCheck:
    ld hl, SAVE_FRAMES
    ld b, SAVE_CHECK - SAVE_FRAMES
    xor a
.byte:
    xor [hl]
    inc hl
    dec b
    jr nz, .byte
    ld [hl], a
    ret

; Shows the counters (most significant byte first). Runs at the start of VBlank.
Draw:
    ld hl, _SCRN0 + 32 * 6 + 10
    ld a, [SAVE_FRAMES + 3]
    call PrintHex
    ld a, [SAVE_FRAMES + 2]
    call PrintHex
    ld a, [SAVE_FRAMES + 1]
    call PrintHex
    ld a, [SAVE_FRAMES]
    call PrintHex
    ld hl, _SCRN0 + 32 * 8 + 10
    ld a, [SAVE_BOOTS + 1]
    call PrintHex
    ld a, [SAVE_BOOTS]
    jp PrintHex

Magic:
    db "BCNT"
Title:
    db "BATTERY COUNTER", 0
FramesLabel:
    db "FRAMES $", 0
BootsLabel:
    db "BOOTS  $", 0

    INCLUDE "include/common.inc"
