; An LY=LYC STAT interrupt on every visible line, as raster effects use it: the handler
; moves LYC on to the next line and writes SCY and LCDC's BG map bit. A delay that grows
; with a frame counter moves its writes from mode 2 into mode 3 and across the line's
; turn; every fourth frame the OAM (mode 2) source is on too, so a line's OAM step may
; interrupt while the LY=LYC match of the line before is held; on the frames with bit 2 of
; the counter set, LYC goes on through VBlank's lines 144..=152 too. The main loop HALTs.
; The background's tiles and maps all differ, so a write landing a dot early or late in
; mode 3 changes the bytes the fetcher holds when the line ends.
; These are the quiet windows `FastPaths::lyc_windows` lengthens, and the quiet walk's
; VBlank lines.
; No pass criterion: the fast-path oracle (`crates/core/tests/fast_paths/`) compares runs.

INCLUDE "hardware.inc"

    TITLE "BS LYC RASTER"

SECTION "vblank vector", ROM0[$40]
    jp VBlank

SECTION "stat vector", ROM0[$48]
    jp Stat

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    ; Tile data and both maps from a pattern (each byte its address's low XOR high byte),
    ; so that every row SCY and the BG map bit choose fetches different bytes.
    call LcdOff
    ld hl, _VRAM
.fill:
    ld a, l
    xor h
    ld [hl+], a
    ld a, h
    cp HIGH(_VRAM) + $20
    jr c, .fill
    ld a, LCDCF_ON | LCDCF_BG8000 | LCDCF_BGON
    ldh [rLCDC], a
    ld a, STATF_LYC
    ldh [rSTAT], a
    xor a
    ldh [rLYC], a
    ldh [hFrame], a
    ld a, IEF_VBLANK | IEF_STAT
    ldh [rIE], a
    ei
.idle:
    halt
    nop
    jr .idle

Stat:
    push af
    push bc
    ldh a, [hFrame]
    and 15
    inc a
    ld b, a
.delay:
    dec b
    jr nz, .delay
    ldh a, [rLY]
    ldh [rSCY], a
    inc a
    ld b, a
    ; Every other four frames LYC goes on into VBlank (up to line 152) before line 0.
    ldh a, [hFrame]
    and 4
    ld a, 144
    jr z, .wrap
    ld a, 153
.wrap:
    ld c, a
    ld a, b
    cp c
    jr c, .next
    xor a
.next:
    ldh [rLYC], a
    ldh a, [rLCDC]
    xor LCDCF_BG9C00
    ldh [rLCDC], a
    pop bc
    pop af
    reti

VBlank:
    push af
    ldh a, [hFrame]
    inc a
    ldh [hFrame], a
    and 3
    ld a, STATF_LYC
    jr nz, .sources
    ld a, STATF_LYC | STATF_MODE10
.sources:
    ldh [rSTAT], a
    pop af
    reti

SECTION "hram variables", HRAM[$FF80]
hFrame: ds 1

    INCLUDE "include/common.inc"
