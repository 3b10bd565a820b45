; model: CGB
; A general-purpose VRAM DMA (1 block, VRAM bank 0) started at 16 points 3 M-cycles apart
; from the start of line 10, through its mode 3 into mode 0; block s copies 16 bytes $40 + s
; to $8800 + 16s. Afterwards (LCD off) each step shows the first byte of its destination in
; bank 0, then in bank 1 (cleared to $00 before): where the copy landed while the PPU held
; VRAM. Not a manifest row: SameBoy writes both banks and moves one block (README).

INCLUDE "hardware.inc"

    TITLE "GDMA MODE3"
    CGB_FLAG $C0

DEF STEPS EQU 16

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff
    xor a
    ldh [rIF], a
    ldh [rIE], a
    ldh [rSCX], a
    ; source: block s = 16 bytes $40 + s at $C000 + 16s
    ld hl, $C000
    ld b, $40
.source:
    ld c, 16
.source_byte:
    ld a, b
    ld [hl+], a
    dec c
    jr nz, .source_byte
    inc b
    ld a, b
    cp $40 + STEPS
    jr nz, .source
    ; $8800-$88FF cleared in both banks
    ld a, 1
    ldh [rVBK], a
    ld hl, $8800
    ld bc, $100
    ld e, 0
    call MemSet
    xor a
    ldh [rVBK], a
    ld hl, $8800
    ld bc, $100
    ld e, 0
    call MemSet
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ld b, 0
.sweep:
    ld a, b
    swap a
    ldh [rHDMA2], a
    ldh [rHDMA4], a
    ld a, $C0
    ldh [rHDMA1], a
    ld a, $08
    ldh [rHDMA3], a
    ld a, 10
    call WaitLineStart
    ld a, b
    add b
    add b
    call DelayA
    xor a
    ldh [rHDMA5], a
    inc b
    ld a, b
    cp STEPS
    jr nz, .sweep
    call LcdOff
    ld b, 0
.read:
    ld a, b
    swap a
    ld l, a
    ld h, $88
    xor a
    ldh [rVBK], a
    ld a, [hl]
    push hl
    push bc
    sla b
    call StoreResult
    pop bc
    pop hl
    ld a, 1
    ldh [rVBK], a
    ld a, [hl]
    push bc
    sla b
    inc b
    call StoreResult
    pop bc
    xor a
    ldh [rVBK], a
    inc b
    ld a, b
    cp STEPS
    jr nz, .read
    ld de, Title
    ld c, 2 * STEPS
    jp ProbeShow

Title:
    db "GDMA MODE 3", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
