; A main loop with interrupts on that writes LY, or LY + 1, to LYC with the LY=LYC STAT
; source enabled: a write of LY raises the STAT line itself, and the interrupt is taken
; at the next instruction's fetch. The handler counts in HRAM and writes the count to SCY.
; A delay after each write, longer from round to round, moves the writes across the line.
; This is what `Machine::write_leaves_checks` compares IF for: an LYC write that leaves
; the run loop's checks alone must still see the request it made.
; No pass criterion: the fast-path oracle (`crates/core/tests/fast_paths/`) compares runs.

INCLUDE "hardware.inc"

    TITLE "BS LYC WRITE IME"

SECTION "stat vector", ROM0[$48]
    jp Stat

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    ld a, STATF_LYC
    ldh [rSTAT], a
    xor a
    ldh [hCount], a
    ld a, IEF_STAT
    ldh [rIE], a
    ei
.loop:
    ldh a, [rLY]
    ld b, a
    ldh a, [hCount]
    and 1
    add a, b
    ldh [rLYC], a
    ldh a, [hCount]
    and 7
    inc a
    ld c, a
.delay:
    nop
    nop
    dec c
    jr nz, .delay
    jr .loop

Stat:
    push af
    ldh a, [hCount]
    inc a
    ldh [hCount], a
    ldh [rSCY], a
    pop af
    reti

SECTION "hram variables", HRAM[$FF80]
hCount: ds 1
