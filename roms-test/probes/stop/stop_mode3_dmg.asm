; model: DMG
; STOP (DMG) entered across mode 3 of a line, woken by a button (the input script presses A
; every 60000 M-cycles for 2000). Step s (0-15): with the buttons selected in P1 and none
; pressed, from the start of line 9 (LY=LYC HALT), 81 + 4s M-cycles pass (reaching line 10's
; mode 2, mode 3 and the start of mode 0), STOP; right after the wake-up LY, STAT and the VRAM byte at
; $8000 (written $5A with the LCD off) are read. Shows where the frozen PPU stands when the
; CPU wakes: the mode STOP began in, VRAM still locked if that was mode 3. Three results per
; step.

INCLUDE "hardware.inc"

    TITLE "STOP MODE3 DMG"

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
    ldh [rLCDC], a
    ld a, $5A
    ld [$8000], a
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ld a, P1F_GET_BTN
    ldh [rP1], a
    ld b, 0
.sweep:
    call WaitReleased
    ld a, 9
    call WaitLineStart
    ld a, b
    add a
    add a
    add 60
    call DelayA
    stop
    ldh a, [rLY]
    ld c, a
    ldh a, [rSTAT]
    ld d, a
    ld a, [$8000]
    ld e, a
    push de
    ld a, c
    call StoreNext ; LY
    pop de
    push de
    ld a, d
    call StoreNext ; STAT
    pop de
    ld a, e
    call StoreNext ; VRAM
    xor a
    ldh [rIF], a
    inc b
    ld a, b
    cp STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 3 * STEPS
    jp ProbeShow

INCLUDE "stop_joypad.inc"

Title:
    db "STOP MODE3 DMG", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
