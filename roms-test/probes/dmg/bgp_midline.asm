; model: DMG
; bgp_midline: BGP written once in the middle of every visible line, one M-cycle (4 dots)
; later on each line for 32 lines (the pattern repeats down the screen), and set back in
; mode 2 of the next line. The background is tile 0, whose pixels cycle through colours 0, 1, 2, 3; the old
; palette is 3-2-1-0 and the new one 0-1-2-3, so every pixel shows which palette it took,
; and the dot at the write shows whether it took a mix of both. The screen is the result.

INCLUDE "hardware.inc"
    TITLE "BGP MIDLINE"

DEF OLD_BGP EQU %11100100
DEF NEW_BGP EQU %00011011
DEF BASE EQU 4

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $DFF0
    call LcdOff
    ; tile 0: each row's pixels are colours 0, 1, 2, 3, 0, 1, 2, 3
    ld hl, _VRAM
    ld b, 8
.tile:
    ld a, $55
    ld [hl+], a
    ld a, $33
    ld [hl+], a
    dec b
    jr nz, .tile
    ld hl, _SCRN0
    ld bc, 32 * 32
    ld e, 0
    call MemSet
    xor a
    ldh [rSCX], a
    ldh [rSCY], a
    ld a, OLD_BGP
    ldh [rBGP], a
    ld a, LCDCF_ON | LCDCF_BG8000 | LCDCF_BGON
    ldh [rLCDC], a

Frame:
    ; synchronise on VBlank (IME 0: HALT wakes without a dispatch)
    xor a
    ldh [rSTAT], a
    ld a, IEF_VBLANK
    ldh [rIE], a
    xor a
    ldh [rIF], a
    halt
    nop
    ; then on the mode-2 start of every visible line
    ld a, STATF_MODE10
    ldh [rSTAT], a
    ld a, IEF_STAT
    ldh [rIE], a
    ld c, 0
Line:
    xor a
    ldh [rIF], a
    halt
    nop
    ; the old palette again, in mode 2, before this line's pixels
    ld a, OLD_BGP
    ldh [rBGP], a
    ; hl = the slide entry for a delay of (line mod 32) M-cycles
    ld a, c
    and 31
    ld b, a
    ld hl, SlideEnd
    ld a, l
    sub b
    ld l, a
    ld a, h
    sbc 0
    ld h, a
    ld b, NEW_BGP
    jp hl
Slide:
    REPT 31
    nop
    ENDR
SlideEnd:
    REPT BASE
    nop
    ENDR
    ld a, b
    ldh [rBGP], a
    inc c
    ld a, c
    cp 144
    jr nz, Line
    jp Frame

INCLUDE "../../include/common.inc"
