; model: CGB
; STOP on a CGB (KEY1 not armed) with the LCD on, woken by a button (the input script presses
; A every 40000 M-cycles for 2000). Step s (0-15): a first STOP is woken by a press; the CPU
; turns the LCD off and on, waits 3000 M-cycles (the press is over) and executes STOP again;
; the next press wakes it, and 8s M-cycles later STAT, LY and DIV are read. Everything is
; timed from the first wake-up, so the second one's place in the frame shows how the CGB's
; PPU ran on through STOP while DIV stood still. Three results per step.

INCLUDE "hardware.inc"

    TITLE "STOP WAKE CGB"
    CGB_FLAG $C0

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
    ldh [rIF], a
    ldh [rIE], a
    ldh [rSTAT], a
    ld a, P1F_GET_BTN
    ldh [rP1], a
    ld b, 0
.sweep:
    ; the first press of the pair wakes a first STOP: the same wake-up latency then
    ; starts and ends the timed part, so it cancels out
    call WaitReleased
    stop
    xor a
    ldh [rLCDC], a
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ld c, 24
.long_wait:
    ld a, 100
    call DelayA
    dec c
    jr nz, .long_wait
    stop
    ld a, b
    add a
    add a
    add a
    call DelayA
    ldh a, [rSTAT]
    ld c, a
    ldh a, [rLY]
    ld d, a
    ldh a, [rDIV]
    ld e, a
    push de
    ld a, c
    call StoreNext
    pop de
    push de
    ld a, d
    call StoreNext
    pop de
    ld a, e
    call StoreNext
    inc b
    ld a, b
    cp STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 3 * STEPS
    jp ProbeShow

INCLUDE "stop_joypad.inc"

Title:
    db "STOP WAKE CGB", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
