; model: CGB
; hdma_halt.asm at double speed.
; An HBlank VRAM DMA while the CPU sleeps in HALT (IME off). Case k (1-8): a 16-block
; transfer started in VBlank; at line 10 (polled) the CPU halts until LY = LYC = 10 + k, reads
; HDMA5 and LY, halts again until that line's mode 0 interrupt, reads HDMA5, then stops the
; transfer. Three results per case: the blocks left minus one after the first wake-up (no
; block ran while halted, whatever k), the line it woke in, and the blocks left minus one
; after the wake-up in mode 0 (SameBoy: a HALT begun outside mode 0 that ends in it lets
; that HBlank's block run at once).

INCLUDE "hardware.inc"

    TITLE "HDMA HALT 2X"
    CGB_FLAG $C0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call EnterDoubleSpeed
    call ResetStores
    ld b, 1
.case:
    ld a, 144
    call WaitLy
    ld a, $C0
    ldh [rHDMA1], a
    xor a
    ldh [rHDMA2], a
    ld a, $80
    ldh [rHDMA3], a
    xor a
    ldh [rHDMA4], a
    ld a, $8F
    ldh [rHDMA5], a
    ld a, 10
    call WaitLy
    ld a, 10
    add b
    ldh [rLYC], a
    ld a, STATF_LYC
    ldh [rSTAT], a
    ld a, IEF_STAT
    ldh [rIE], a
    xor a
    ldh [rIF], a
    halt
    nop
    ldh a, [rHDMA5]
    ld c, a
    ldh a, [rLY]
    ld d, a
    ld a, STATF_MODE00
    ldh [rSTAT], a
    xor a
    ldh [rIF], a
    halt
    nop
    ldh a, [rHDMA5]
    ld e, a
    xor a
    ldh [rHDMA5], a
    ldh [rSTAT], a
    ldh [rIE], a
    ldh [rIF], a
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
    cp 9
    jr nz, .case
    ld de, Title
    ld c, 24
    jp ProbeShow

Title:
    db "HDMA HALT 2X", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
