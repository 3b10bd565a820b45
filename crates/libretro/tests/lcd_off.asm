; A tone that never stops while the LCD goes off for a different stretch each round (from
; under a frame to a dozen frames, past FrameBounds' four-frame limit) and comes back on for
; a few frames: frames that end by time, not at a frame end. The tone's pitch changes every
; round, so the sound is not one constant level. For `audio_does_not_drift_with_the_lcd_off`.

INCLUDE "hardware.inc"

    TITLE "BS LCD OFF"

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $DFF0
    ld a, $80 ; sound on
    ldh [rNR52], a
    ld a, $77
    ldh [rNR50], a
    ld a, $FF
    ldh [rNR51], a
    ld a, $80 ; 50 % duty
    ldh [rNR21], a
    ld a, $F0 ; full volume, no envelope
    ldh [rNR22], a
    xor a
    ldh [rNR23], a
    ld a, $87 ; trigger
    ldh [rNR24], a
    ld e, 0 ; the round

Round:
    inc e
    ld a, e
    ldh [rNR23], a ; a new pitch, no retrigger
.vblank:
    ldh a, [rLY]
    cp 144
    jr nz, .vblank
    xor a
    ldh [rLCDC], a
    ; Off for ((round & 7) * 16 + 8) * 256 turns of 7 M-cycles: 0.8 to 12 frames.
    ld a, e
    and 7
    swap a
    add a, 8
    call Delay
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ld a, 40 ; about 4 frames on
    call Delay
    jp Round

; A * 256 turns of a 7 M-cycle loop.
Delay:
    ld b, a
    ld c, 0
.loop:
    dec bc
    ld a, b
    or c
    jr nz, .loop
    ret
