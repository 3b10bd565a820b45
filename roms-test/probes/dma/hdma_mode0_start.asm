; model: CGB
; An HBlank VRAM DMA (2 blocks) started at 32 consecutive M-cycles across the end of mode 3
; of line 10; HDMA5 is read right after the write. Started in mode 0 the first block runs at
; once ($80 read), started before it waits for the HBlank ($81 read). Single speed.

INCLUDE "hardware.inc"

    TITLE "HDMA MODE0 STRT"
    CGB_FLAG $C0

DEF STEPS EQU 32
DEF BASE_DELAY EQU 0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    xor a
    ldh [rSCX], a
    ldh [rIF], a
    ldh [rIE], a
    ld a, LCDCF_ON | LCDCF_BGON
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
    ld a, 10
    call WaitLineStart
    ld a, b
    add BASE_DELAY
    call DelayA
    ld a, $81
    ldh [rHDMA5], a
    ldh a, [rHDMA5]
    call StoreResult
    xor a
    ldh [rHDMA5], a ; stop the transfer
    inc b
    ld a, b
    cp STEPS
    jr nz, .sweep
    ld de, Title
    ld c, STEPS
    jp ProbeShow

Title:
    db "HDMA MODE0 START", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
