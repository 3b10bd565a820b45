; model: CGB
; An HBlank VRAM DMA stopped, a general-purpose one after it, and an HBlank one again, all
; carrying on from the same addresses; HDMA5 read at each stage (bit 7 clear while a
; transfer is active). Source bytes $C0xx hold xx. Waits poll LY (HALT would pause the
; transfer); the GDMA runs in VBlank (in mode 3 the PPU's VRAM reads garble its writes).
;   0 HDMA5 after $83 is written in VBlank (4 blocks, HBlank mode)
;   1 in line 2 (lines 0 and 1 copied a block each)
;   2 after $00 is written (stops the HBlank transfer; reads $80 | the value written)
;   3 in line 144 (no more blocks)
;   4 after $00 again (a 1-block GDMA now)
;   5 after $81 is written (HBlank mode, 2 blocks)
;   6 in line 3 (lines 0 and 1 copied them)
;   7-12 VRAM $8000, $8010, ..., $8050 (blocks 1-5 landed one after the other)
;   13 HDMA5 after a 6-block HBlank transfer is stopped in line 2 by writing $01

INCLUDE "hardware.inc"

    TITLE "HDMA AFTER GDMA"
    CGB_FLAG $C0

SECTION "entry", ROM0[$100]
    nop
    jp Start

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
    ldh [rSCX], a
    ld hl, $8000
    ld bc, $100
    ld e, $EE
    call MemSet
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ld de, wResults

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
    ld a, $83
    call WriteAndRead
    ld a, 2
    call WaitAndRead
    xor a
    call WriteAndRead
    ld a, 144
    call WaitAndRead
    xor a
    call WriteAndRead
    ld a, $81
    call WriteAndRead
    ld a, 3
    call WaitAndRead
    ; VRAM, read in VBlank
    ld a, 144
    call WaitLy
    ld hl, $8000
.vram:
    ld a, [hl]
    ld [de], a
    inc de
    ld a, l
    add $10
    ld l, a
    cp $60
    jr nz, .vram
    ; a 6-block transfer stopped with $03 after the blocks of lines 0 and 1
    ld a, $85
    call WriteAndRead
    dec de
    ld a, 2
    call WaitLy
    ld a, $01
    call WriteAndRead

    ld de, Title
    ld c, 14
    jp ProbeShow

; Writes a to HDMA5 and stores what HDMA5 reads right after at de (de advances).
WriteAndRead:
    ldh [rHDMA5], a
    ldh a, [rHDMA5]
    ld [de], a
    inc de
    ret

; Waits (polling, no HALT) for line a, then stores HDMA5 at de (de advances).
WaitAndRead:
    call WaitLy
    ldh a, [rHDMA5]
    ld [de], a
    inc de
    ret

Title:
    db "HDMA AFTER GDMA", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
