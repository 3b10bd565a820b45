; The harness's own check of screenshot suites judged at the breakpoint
; (`crates/harness/tests/own_roms.rs`): shows a white screen (BGP = 0), waits about 26
; frames, executes `LD B,B`, waits as long again and turns the screen black (BGP = $FF).

INCLUDE "hardware.inc"

    TITLE "BS BREAKPOINT"

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    xor a
    ldh [rBGP], a
    call Wait
    ld b, b
    call Wait
    ld a, $FF
    ldh [rBGP], a
.idle:
    jr .idle

; About 26 frames: 65,535 rounds of 7 M-cycles.
Wait:
    ld de, $FFFF
.loop:
    dec de
    ld a, d
    or e
    jr nz, .loop
    ret
