; The harness's own check of the Mooneye protocol (`crates/harness/tests/own_roms.rs`):
; loads B, C, D, E, H, L with RESULT_B .. RESULT_L, which the test defines before including
; this file, then executes `LD B,B` and idles.

INCLUDE "hardware.inc"

    TITLE "BS MOONEYE"

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    ld b, RESULT_B
    ld c, RESULT_C
    ld d, RESULT_D
    ld e, RESULT_E
    ld h, RESULT_H
    ld l, RESULT_L
    ld b, b
.idle:
    jr .idle
