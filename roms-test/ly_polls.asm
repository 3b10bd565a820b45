; Loops polling LY and STAT whose skips (`crates/core/src/poll_loop.rs`) run across changes of the
; value read: waiting for LY >= 145, for LY == 10 (with a NOP: 9 M-cycles an iteration), for LY ==
; C, 143 or B (a compare chain: three ways out, by `jp` and `jr`), for mode 0 or 1 (a chain on
; STAT: `and 3; jr z`, then `cp 1; jr nz`), for mode 0 (STAT), for LY % 8 == 0 (`and 7`, which
; changes A). A delay that grows with a frame counter moves the loops' phase against the lines
; from frame to frame; the VBlank and an LY=LYC STAT interrupt (line 50) cut the quiet windows;
; the values the loops leave go to HRAM.
; No pass criterion: the fast-path oracle (`crates/core/tests/fast_paths.rs`) compares runs.

INCLUDE "hardware.inc"

    TITLE "BS LY POLLS"

SECTION "vblank vector", ROM0[$40]
    reti

SECTION "stat vector", ROM0[$48]
    reti

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    ld a, STATF_LYC
    ldh [rSTAT], a
    ld a, 50
    ldh [rLYC], a
    ld a, IEF_VBLANK | IEF_STAT
    ldh [rIE], a
    ei

Frame:
.vblank:
    ldh a, [rLY]
    cp 145
    jr c, .vblank
    ; B = 1 + the frame counter's low 4 bits; DEC B until 0.
    ldh a, [hFrame]
    inc a
    ldh [hFrame], a
    and $0F
    inc a
    ld b, a
.delay:
    dec b
    jr nz, .delay
.line10:
    ldh a, [rLY]
    nop
    cp 10
    jr nz, .line10
    ld c, 40
    ld b, 100
.either:
    ldh a, [rLY]
    cp c
    jr nz, .not_c
    jp .found
.not_c:
    cp 143
    jp z, .found
    cp b
    jr nz, .either
.found:
    inc a
    ldh [hFound], a
.mode0_or_1:
    ldh a, [rSTAT]
    and 3
    jr z, .mode0
    cp 1
    jr nz, .mode0_or_1
.mode0:
    ldh a, [rSTAT]
    and 3
    jr nz, .mode0
.line_of_8:
    ldh a, [rLY]
    and 7
    jr nz, .line_of_8
    ldh [hLeft], a
    jp Frame

SECTION "hram variables", HRAM[$FF80]
hFrame: ds 1
hFound: ds 1
hLeft: ds 1
