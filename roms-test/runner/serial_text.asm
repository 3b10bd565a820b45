; The harness's own check of Blargg's serial protocol (`crates/harness/tests/own_roms.rs`):
; sends the zero-terminated bytes at `Message`, which the test defines before including
; this file, on the serial port with the internal clock, waiting for each, then idles.

INCLUDE "hardware.inc"

    TITLE "BS SERIAL"

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    ld hl, Message
.next:
    ld a, [hl+]
    and a
    jr z, .idle
    ldh [rSB], a
    ld a, $81 ; start, internal clock
    ldh [rSC], a
.wait:
    ldh a, [rSC]
    bit 7, a
    jr nz, .wait
    jr .next
.idle:
    jr .idle
