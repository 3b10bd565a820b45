; model: CGB
; VRAM DMA sources the DMA cannot read: a one-block general-purpose DMA from each source
; below to $8800 + $10k (LCD off), then VRAM read at +4 and +$F (the first bytes of a block
; from such a source are SameBoy's decaying open bus, left out). Source bytes: VRAM $5A,
; WRAM $C0xx xx, OAM $66, HRAM $77; ROM $3FF0 holds $10-$1F.
;   0 $3FF0 (ROM)   1 $C000 (WRAM)   2 $8000 (VRAM)   3 $9FF0 (VRAM)
;   4 $E000 (echo of WRAM)   5 $FE00 (OAM)   6 $FF80 (HRAM)   7 $A000 (no cartridge RAM)

INCLUDE "hardware.inc"

    TITLE "HDMA SOURCES"
    CGB_FLAG $C0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "rom bytes", ROM0[$3FF0]
    db $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $1A, $1B, $1C, $1D, $1E, $1F

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff
    ld hl, $C000
.fill:
    ld a, l
    ld [hl+], a
    ld a, l
    and a
    jr nz, .fill
    xor a
    ldh [rVBK], a
    ld hl, $8000
    ld bc, $2000
    ld e, $5A
    call MemSet
    ld hl, $8800
    ld bc, $100
    ld e, 0
    call MemSet
    ld hl, $FE00
    ld bc, $10
    ld e, $66
    call MemSet
    ld hl, $FF80
    ld bc, $10
    ld e, $77
    call MemSet
    call ResetStores
    ld hl, Sources
    ld bc, $8800
.case:
    ld a, [hl+]
    ldh [rHDMA1], a
    ld a, [hl+]
    ldh [rHDMA2], a
    ld a, b
    ldh [rHDMA3], a
    ld a, c
    ldh [rHDMA4], a
    xor a
    ldh [rHDMA5], a
    push hl
    push bc
    ld h, b
    ld l, c
    push hl
    ld de, 4
    add hl, de
    ld a, [hl]
    call StoreNext
    pop hl
    ld de, $F
    add hl, de
    ld a, [hl]
    call StoreNext
    pop bc
    pop hl
    ld a, c
    add $10
    ld c, a
    cp $80
    jr nz, .case
    ld de, Title
    ld c, 16
    jp ProbeShow

Sources:
    dw $F03F, $00C0, $0080, $F09F, $00E0, $00FE, $80FF, $00A0

Title:
    db "HDMA SOURCES", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
