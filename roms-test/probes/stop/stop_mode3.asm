; model: CGB
; STOP on a CGB (KEY1 not armed) entered across mode 3 of a line, woken by a button (the
; input script presses A every 40000 M-cycles for 2000). Step s (0-15): a first STOP is woken
; by a press; the CPU waits 3000 M-cycles (the press is over), turns the LCD off and on, waits
; for the start of line 9 (LY=LYC HALT), lets 81 + 4s M-cycles pass (reaching line 10's mode 2,
; mode 3 and the start of mode 0) and executes STOP; the next press wakes it, and at once LY, STAT and the
; VRAM byte at $8000 (written $5A with the LCD off) are read. The second wake-up is a fixed
; time after the first, whatever the step: equal results show that a STOP begun in mode 3
; leaves the CGB's PPU (which runs on through STOP) and VRAM alone. Three results per step.

INCLUDE "hardware.inc"

    TITLE "STOP MODE3"
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
    stop
    ld c, 30
.long_wait:
    ld a, 100
    call DelayA
    dec c
    jr nz, .long_wait
    xor a
    ldh [rLCDC], a
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
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
    db "STOP MODE3", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
