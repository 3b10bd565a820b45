; RTC clock: shows the MBC3 real-time clock and copies what it read to battery RAM, so
; tests can see the game's view of the clock after a battery save is loaded.
;
; Every frame, right after VBlank starts, the clock is latched (write $00 then $01 to
; $6000) and the five latched registers are read by mapping $08-$0C at $A000-$BFFF
; (Pan Docs, "MBC3"). They are then stored in cartridge RAM bank 0:
;   $A000  seconds, minutes, hours, day low, day high (halt bit 6, day carry bit 7)
;   $A005  "RTC"   magic
; and drawn on screen in hex, most significant first: DH DL HH MM SS.

INCLUDE "hardware.inc"

    TITLE "BS RTC CLOCK"
    CART_TYPE $10 ; MBC3+TIMER+RAM+BATTERY
    RAM_SIZE $02  ; 8 KiB, one bank

DEF RTC_LATCH   EQU $6000
DEF RTC_SECONDS EQU $08 ; RAMB value of the first clock register
DEF SAVE_CLOCK  EQU $A000
DEF SAVE_MAGIC  EQU $A005
DEF CLOCK_ROW   EQU 6

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
    ld hl, _SCRN0 + 32 * 2 + 5
    ld de, Title
    call Print
    ld hl, _SCRN0 + 32 * (CLOCK_ROW - 1) + 3
    ld de, Legend
    call Print
    ld a, $0A
    ld [RAMG], a
    call StartLcdWithVBlank

MainLoop:
    call WaitVBlank
    call ReadClock
    call StoreClock
    call DrawClock
    jr MainLoop

; Latches the clock and copies its five registers to hClock. Clobbers a, b, c, hl.
ReadClock:
    xor a
    ld [RTC_LATCH], a
    inc a
    ld [RTC_LATCH], a
    ld hl, hClock
    ld c, RTC_SECONDS
    ld b, 5
.register:
    ld a, c
    ld [RAMB], a
    ld a, [SAVE_CLOCK]
    ld [hl+], a
    inc c
    dec b
    jr nz, .register
    ret

; Writes hClock and the magic to RAM bank 0. Clobbers a, bc, de, hl.
StoreClock:
    xor a
    ld [RAMB], a
    ld hl, SAVE_CLOCK
    ld de, hClock
    ld bc, 5
    call MemCopy
    ld hl, SAVE_MAGIC
    ld de, Magic
    ld bc, 3
    jp MemCopy

; Draws hClock as DH DL HH MM SS. Clobbers a, b, de, hl.
DrawClock:
    ld hl, _SCRN0 + 32 * CLOCK_ROW + 3
    ld de, hClock + 4
    ld c, 5
.register:
    ld a, [de]
    call PrintHex
    inc hl
    dec de
    dec c
    jr nz, .register
    ret

Magic:
    db "RTC"
Title:
    db "RTC CLOCK", 0
Legend:
    db "DH DL HH MM SS", 0

SECTION "clock variables", HRAM
hClock: ds 5  ; seconds, minutes, hours, day low, day high as last latched

    INCLUDE "include/common.inc"
