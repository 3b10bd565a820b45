; model: CGB
; VRAM DMA addresses: which bits of HDMA1-4 count, where the destination wraps, and that the
; addresses carry on from one transfer to the next. Source bytes: $C0xx holds xx, $C1xx holds
; xx ^ $FF. Each case runs a general-purpose DMA and reads VRAM where the blocks went:
;   0 source $C012 (low nibble dropped), 1 block to $8000: $8000, $800F
;   1 destination $8827 (low nibble dropped), source $C040: $8820, $882F
;   2 destination $E830 (bits 13-15 dropped) → $8830, source $C050: $8830, $883F
;   3 destination $9FF0, 2 blocks from $C080: $9FF0, then $8000 (wrapped)
;   4 destination $FFF0, 2 blocks from $C0A0: $9FF0, $8000 (the second block, if it wraps), HDMA5
;   5 source $C0C0 to $8100, 1 block, then HDMA5 alone again: $8100, $8110
;   6 source $C0F0 to $8200, 1 block, then HDMA2 = $20 alone and 1 block: $8210 ($C120), HDMA5
;   7 HDMA1-HDMA4 read back (write-only)

INCLUDE "hardware.inc"

    TITLE "HDMA MASKS"
    CGB_FLAG $C0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff
    ; the source bytes
    ld hl, $C000
.fill:
    ld a, l
    bit 0, h
    jr z, .low_page
    cpl
.low_page:
    ld [hl+], a
    ld a, h
    cp $C2
    jr nz, .fill
    ; VRAM bank 0 cleared
    xor a
    ldh [rVBK], a
    ld hl, $8000
    ld bc, $2000
    ld e, 0
    call MemSet
    ld de, wResults

    ; 0
    ld hl, $C012
    ld bc, $8000
    ld a, $00
    call Gdma
    ld a, [$8000]
    ld [de], a
    inc de
    ld a, [$800F]
    ld [de], a
    inc de
    ; 1
    ld hl, $C040
    ld bc, $8827
    ld a, $00
    call Gdma
    ld a, [$8820]
    ld [de], a
    inc de
    ld a, [$882F]
    ld [de], a
    inc de
    ; 2
    ld hl, $C050
    ld bc, $E830
    ld a, $00
    call Gdma
    ld a, [$8830]
    ld [de], a
    inc de
    ld a, [$883F]
    ld [de], a
    inc de
    ; 3
    ld hl, $C080
    ld bc, $9FF0
    ld a, $01
    call Gdma
    ld a, [$9FF0]
    ld [de], a
    inc de
    ld a, [$8000]
    ld [de], a
    inc de
    ; 4
    ld hl, $C0A0
    ld bc, $FFF0
    ld a, $01
    call Gdma
    ld a, [$9FF0]
    ld [de], a
    inc de
    ld a, [$8000]
    ld [de], a
    inc de
    ldh a, [rHDMA5]
    ld [de], a
    inc de
    ; 5
    ld hl, $C0C0
    ld bc, $8100
    ld a, $00
    call Gdma
    xor a
    ldh [rHDMA5], a
    ld a, [$8100]
    ld [de], a
    inc de
    ld a, [$8110]
    ld [de], a
    inc de
    ; 6
    ld hl, $C0F0
    ld bc, $8200
    ld a, $00
    call Gdma
    ld a, $20
    ldh [rHDMA2], a
    xor a
    ldh [rHDMA5], a
    ld a, [$8210]
    ld [de], a
    inc de
    ldh a, [rHDMA5]
    ld [de], a
    inc de
    ; 7
    ld c, LOW(rHDMA1)
.readback:
    ldh a, [c]
    ld [de], a
    inc de
    inc c
    ld a, c
    cp LOW(rHDMA5)
    jr nz, .readback

    ld de, Title
    ld c, 19
    jp ProbeShow

; A general-purpose VRAM DMA of a + 1 blocks from hl to bc. Clobbers a.
Gdma:
    push af
    ld a, h
    ldh [rHDMA1], a
    ld a, l
    ldh [rHDMA2], a
    ld a, b
    ldh [rHDMA3], a
    ld a, c
    ldh [rHDMA4], a
    pop af
    ldh [rHDMA5], a
    ret

Title:
    db "HDMA MASKS", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
