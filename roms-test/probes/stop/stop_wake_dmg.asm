; model: DMG
; STOP on a DMG with the LCD on, woken by a button (the input script presses A every 60000
; M-cycles for 2000). Step s (0-15): with the buttons selected in P1 and none pressed, from
; the start of line 10 (LY=LYC HALT), 21 + 8s M-cycles pass (modes 2, 3 and 0), STOP;
; right after the wake-up DIV, LY, STAT and IF are read, then DIV again 48 + s M-cycles
; later. Shows that STOP resets DIV and stops it (its first step after the wake-up), that
; the PPU stands still through STOP (LY and the mode where STOP began), and that the press
; requests the joypad interrupt. Five results per step.

INCLUDE "hardware.inc"

    TITLE "STOP WAKE DMG"

DEF STEPS EQU 16

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call ResetStores
    xor a
    ldh [rIE], a
    ldh [rIF], a
    ldh [rSCX], a
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ld a, P1F_GET_BTN
    ldh [rP1], a
    ld b, 0
.sweep:
    call WaitReleased
    ld a, 10
    call WaitLineStart
    ld a, b
    add a
    add a
    add a
    call DelayA
    stop
    ldh a, [rDIV]
    ld c, a
    ldh a, [rLY]
    ld d, a
    ldh a, [rSTAT]
    ld e, a
    ldh a, [rIF]
    and $1F
    push af
    push de
    ld a, b
    add 48 - SWEEP_DELAY_FIXED - 9
    call DelayA
    ldh a, [rDIV]
    push af
    ld a, c
    call StoreNext ; DIV at once
    pop af
    ld c, a ; DIV later
    pop de
    ld a, e
    push af
    ld a, d
    call StoreNext ; LY
    pop af
    call StoreNext ; STAT
    pop af
    call StoreNext ; IF
    ld a, c
    call StoreNext
    xor a
    ldh [rIF], a
    inc b
    ld a, b
    cp STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 5 * STEPS
    jp ProbeShow

INCLUDE "stop_joypad.inc"

Title:
    db "STOP WAKE DMG", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
