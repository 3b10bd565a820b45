; Loops that poll memory written by interrupt handlers, and loops that poll LY and STAT:
; the run loop skips both kinds (`crates/core/src/poll_loop.rs`), and a skip must leave
; the bytes that executing the loop leaves. No pass criterion of its own: the fast-path
; oracle (`crates/core/tests/fast_paths.rs`) runs it with each speed trick off against all
; of them on and compares every byte.
;
; The VBlank handler sets wVBlank (work RAM) and counts frames in hFrame; the timer handler
; counts overflows in hTicks (HRAM) and wTicks (work RAM), at a rate that changes every
; round (TIMA from $F0 at 4, 16, 64 or 256 M-cycles a step); the LY=LYC handler sets hLyc,
; and LYC moves every round. The main loop waits on each with the forms the skip knows
; (`ld a,[nn]` and `ldh a,[n]`; then `and a`, `or a`, `cp r`, `cp n`, `bit n,a`; then
; `jr z/nz/c`), then on LY and on STAT's mode. A delay that grows with the round moves
; every wait's phase against the interrupts.

INCLUDE "hardware.inc"

    TITLE "BS POLL LOOPS"

SECTION "vblank vector", ROM0[$40]
    jp VBlankHandler

SECTION "stat vector", ROM0[$48]
    jp StatHandler

SECTION "timer vector", ROM0[$50]
    jp TimerHandler

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    xor a
    ld [wVBlank], a
    ld [wTicks], a
    ldh [hFrame], a
    ldh [hTicks], a
    ldh [hLyc], a
    ldh [hRound], a
    ld a, STATF_LYC
    ldh [rSTAT], a
    ld a, 1
    ldh [rLYC], a
    ld a, %11100100
    ldh [rBGP], a
    ld a, $F0
    ldh [rTMA], a
    ld a, %100
    ldh [rTAC], a
    ld a, IEF_VBLANK | IEF_STAT | IEF_TIMER
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ei

MainLoop:
    ; The round's timer rate, LY=LYC line and delay.
    ldh a, [hRound]
    inc a
    ldh [hRound], a
    and 3
    or %100
    ldh [rTAC], a
    ldh a, [hRound]
    and $7F
    ldh [rLYC], a
    ldh a, [hRound]
    and 15
    inc a
    ld b, a
.delay:
    dec b
    jr nz, .delay

    ; The VBlank flag in work RAM: ld a,[nn]; and a; jr z.
.vblank:
    ld a, [wVBlank]
    and a
    jr z, .vblank
    xor a
    ld [wVBlank], a

    ; A timer overflow in HRAM: ldh a,[n]; or a; jr z.
    ldh [hTicks], a
    ld [wTicks], a
.tick:
    ldh a, [hTicks]
    or a
    jr z, .tick

    ; Three overflows: ldh a,[n]; cp b; jr c.
    ld b, 3
.ticks:
    ldh a, [hTicks]
    cp b
    jr c, .ticks

    ; The LY=LYC interrupt in HRAM: ldh a,[n]; bit 0,a; jr z.
.lyc:
    ldh a, [hLyc]
    bit 0, a
    jr z, .lyc
    xor a
    ldh [hLyc], a

    ; Five overflows, in work RAM: ld a,[nn]; cp n; jr c.
.ticks_wram:
    ld a, [wTicks]
    cp 5
    jr c, .ticks_wram

    ; Line 100: ldh a,[rLY]; cp n; jr nz.
.ly:
    ldh a, [rLY]
    cp 100
    jr nz, .ly

    ; HBlank: ldh a,[rSTAT]; and 3; jr nz.
.hblank:
    ldh a, [rSTAT]
    and 3
    jr nz, .hblank

    ; Where the waits ended, for the state to show.
    ldh a, [rDIV]
    ldh [hDivSeen], a
    jp MainLoop

VBlankHandler:
    push af
    ld a, 1
    ld [wVBlank], a
    ldh a, [hFrame]
    inc a
    ldh [hFrame], a
    pop af
    reti

StatHandler:
    push af
    ld a, 1
    ldh [hLyc], a
    pop af
    reti

TimerHandler:
    push af
    ldh a, [hTicks]
    inc a
    ldh [hTicks], a
    ld [wTicks], a
    pop af
    reti

SECTION "variables", WRAM0[$C000]
wVBlank: ds 1
wTicks: ds 1

SECTION "hram variables", HRAM[$FF80]
hFrame: ds 1
hTicks: ds 1
hLyc: ds 1
hRound: ds 1
hDivSeen: ds 1
