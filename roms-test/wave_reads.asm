; Wave RAM read while the wave channel plays, after stretches in which the CPU touches no
; APU register: the channel runs at its highest frequency, so each read answers with the
; byte at the channel's position (Pan Docs, "Obscure behavior"), which moves every two
; T-cycles. Each round waits a little longer than the last (from about 1,800 to 3,600
; M-cycles, more than a flush period of the APU's), then reads FF30 three times a few
; M-cycles apart and keeps the bytes in work RAM. No pass criterion of its own: the
; fast-path oracle (`crates/core/tests/fast_paths`) compares runs with each speed trick off
; against all on (`deferred_flushes`: a read must see the channel's time even while the
; APU owes flushes).

INCLUDE "hardware.inc"

    TITLE "BS WAVE READS"

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    ld a, $80
    ldh [rNR52], a
    ld a, $FF
    ldh [rNR51], a
    ld a, $77
    ldh [rNR50], a
    ld hl, _AUD3WAVERAM
    ld a, $01
    ld c, 16
.byte:
    ld [hl+], a
    add $13
    dec c
    jr nz, .byte
    ld a, $80
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $FF
    ldh [rNR33], a
    ; Triggered, length off, frequency $7FF.
    ld a, $87
    ldh [rNR34], a
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ld hl, $C000
    ld d, 0
Round:
    ; 256 + d turns of seven M-cycles.
    ld c, d
    ld b, 1
.delay:
    dec bc
    ld a, b
    or c
    jr nz, .delay
    ld c, LOW(_AUD3WAVERAM)
    ldh a, [c]
    ld [hl+], a
    ldh a, [c]
    ld [hl+], a
    nop
    ldh a, [c]
    ld [hl+], a
    ; The bytes kept wrap within $C000-$CFFF.
    ld a, h
    cp $D0
    jr nz, .kept
    ld h, $C0
.kept:
    inc d
    jr Round
