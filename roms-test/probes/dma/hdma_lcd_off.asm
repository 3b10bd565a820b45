; model: CGB
; HBlank VRAM DMA and the LCD switch. Steps 0-15: a 4-block HBlank transfer is started in
; mode 2 of line 10, and the LCD is switched off 27 + s M-cycles later (across the end of
; mode 3); HDMA5 is read right after, 213 M-cycles later (LCD still off), and in line 2 once
; the LCD is back on. Steps 16-23: with the LCD off, an 8-block transfer is started; HDMA5
; is read right after the write, 213 M-cycles later, then in line s - 15 once the LCD is on.
; Three results per step. Waits on the LCD poll LY: HALT would pause the transfer. SameBoy:
; a transfer started with the LCD off copies one block at once; switching the LCD off
; outside mode 0 copies one.

INCLUDE "hardware.inc"

    TITLE "HDMA LCD OFF"
    CGB_FLAG $C0

DEF STEPS EQU 24
DEF LCD_ON EQU LCDCF_ON | LCDCF_BGON

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call ResetStores
    xor a
    ldh [rSCX], a
    ldh [rIF], a
    ldh [rIE], a
    ld a, LCD_ON
    ldh [rLCDC], a
    ld b, 0
.sweep:
    ld a, $C0
    ldh [rHDMA1], a
    xor a
    ldh [rHDMA2], a
    ld a, $08
    ldh [rHDMA3], a
    xor a
    ldh [rHDMA4], a
    ld a, b
    cp 16
    jr nc, .started_off
    ld a, 10
    call WaitLineStart
    ld a, $83
    ldh [rHDMA5], a
    ld a, b
    add 0
    call DelayA
    xor a
    ldh [rLCDC], a
    jr .off
.started_off:
    ld a, 10
    call WaitLineStart
    xor a
    ldh [rLCDC], a
    ld a, $87
    ldh [rHDMA5], a
.off:
    ldh a, [rHDMA5]
    call StoreNext
    REPT 3
    ld a, 50
    call DelayA
    ENDR
    ldh a, [rHDMA5]
    call StoreNext
    ld a, LCD_ON
    ldh [rLCDC], a
    ld a, b
    sub 15
    jr nc, .line
    ld a, 2
.line:
    call WaitLy
    ldh a, [rHDMA5]
    call StoreNext
    xor a
    ldh [rHDMA5], a ; stop the transfer
    inc b
    ld a, b
    cp STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 3 * STEPS
    jp ProbeShow

Title:
    db "HDMA LCD OFF", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
