; model: CGB
; hdma_stop.asm at double speed.
; HDMA5 written while an HBlank VRAM DMA runs. Case k (0-7): a 16-block transfer started in
; VBlank; at line 2 + k (polled, mode 2) HDMA5 is written: even k $10 + k (bit 7 clear: stops
; the transfer), odd k $A0 + k (bit 7 set: goes on with a new length). HDMA5 is read right
; after the write and again two lines later. Two results per case: $80 | the value written
; after a stop (the write loads the length counter; Pan Docs says the blocks left), the new
; length after a restart, less the blocks of the two lines that follow.

INCLUDE "hardware.inc"

    TITLE "HDMA STOP 2X"
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
    ld b, 0
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
    ld a, b
    add 2
    call WaitLy
    ld a, b
    bit 0, b
    jr nz, .restart
    add $10
    jr .write
.restart:
    add $A0
.write:
    ldh [rHDMA5], a
    ldh a, [rHDMA5]
    call StoreNext
    ld a, b
    add 4
    call WaitLy
    ldh a, [rHDMA5]
    call StoreNext
    ; stopped for the next case (a stop write is harmless when none runs: a 1-block
    ; general-purpose DMA at most, to where the next case writes anyway)
    ldh a, [rHDMA5]
    bit 7, a
    jr nz, .idle
    xor a
    ldh [rHDMA5], a
.idle:
    inc b
    ld a, b
    cp 8
    jr nz, .case
    ld de, Title
    ld c, 16
    jp ProbeShow

Title:
    db "HDMA STOP 2X", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
