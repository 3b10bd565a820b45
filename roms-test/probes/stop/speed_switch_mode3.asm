; model: CGB
; A speed switch whose STOP lands in mode 3 (LCD on). Step s (0-11): from the start of line
; 10, 40 + s M-cycles pass (across mode 3), STOP switches to double speed, and right after
; the switch's pause LY is read, then STAT three times about 35 M-cycles apart: where the
; PPU went on during the switch, each step one M-cycle later. Steps 12-23 switch back to
; single speed from mode 3 of line 10 at double speed. Four results per step.

INCLUDE "hardware.inc"

    TITLE "SPSW MODE3"
    CGB_FLAG $C0

DEF STEPS EQU 12

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
    ld b, 0
.sweep:
    ; steps 0-11 start at single speed, 12-23 at double speed
    ldh a, [rKEY1]
    rlca
    and 1
    ld c, a
    ld a, b
    cp STEPS
    ld a, 0
    adc 0
    xor 1
    cp c
    jr z, .ready
    ld a, 1
    ldh [rKEY1], a
    stop
.ready:
    ld a, 1
    ldh [rKEY1], a
    ld a, 10
    call WaitLineStart
    ld a, b
    cp STEPS
    jr nc, .double
    add 40 - SWEEP_DELAY_FIXED
    jr .delay
.double:
    add 100 - SWEEP_DELAY_FIXED - STEPS
.delay:
    call DelayA
    stop
    ldh a, [rLY]
    call StoreNext
    REPT 3
    ldh a, [rSTAT]
    call StoreNext
    ENDR
    inc b
    ld a, b
    cp 2 * STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 8 * STEPS
    jp ProbeShow

Title:
    db "SPSW MODE3", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
