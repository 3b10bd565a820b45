; A game's sound loop that leaves the wave channel counting in the background: each note is
; triggered with its DAC on and a short length, and the length counter stops it with the DAC
; still on, so the channel counts on and reads wave RAM at the CPU's bus address
; (`crates/core/src/apu/wave.rs`) until the next note. Every frame waits for VBlank with
; HALT, then works through a loop over work RAM (a game's logic) and polls LY; every 8th
; frame starts a note at a frequency that moves, every 64th rewrites wave RAM (DAC off and on
; around it, which ends the background counting until the next note). No pass criterion of
; its own: the fast-path oracle (`crates/core/tests/fast_paths`) compares runs with each
; speed trick off against all on, and `backspin bench` on it measures what watching the bus
; for those reads costs.

INCLUDE "hardware.inc"

    TITLE "BS WAVE BG"

SECTION "vblank vector", ROM0[$40]
    reti

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    xor a
    ldh [hFrame], a
    ld a, $80
    ldh [rNR52], a
    ld a, $FF
    ldh [rNR51], a
    ld a, $77
    ldh [rNR50], a
    call LoadWave
    ld a, $20
    ldh [rNR32], a
    ld a, IEF_VBLANK
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ld a, LCDCF_ON | LCDCF_BGON
    ldh [rLCDC], a
    ei

MainLoop:
    halt
    ldh a, [hFrame]
    inc a
    ldh [hFrame], a
    ld b, a
    and 63
    call z, RewriteWave
    ld a, b
    and 7
    call z, StartNote
    ; A game's logic: a pass over work RAM.
    ld hl, $C000
    ld c, 0
.logic:
    ld a, [hl]
    add c
    ld [hl+], a
    inc c
    ld a, h
    cp $C3
    jr nz, .logic
    ; Wait for a line, as games do.
.ly:
    ldh a, [rLY]
    cp 120
    jr nz, .ly
    jr MainLoop

; A note: DAC on, length 16 (1/16 s), frequency $700 + 8 * frame.
StartNote:
    ld a, $80
    ldh [rNR30], a
    ld a, $F0
    ldh [rNR31], a
    ldh a, [hFrame]
    ld c, a
    sla a
    sla a
    sla a
    ldh [rNR33], a
    ld a, $C7
    ldh [rNR34], a
    ret

; Wave RAM rewritten with the DAC off (the CPU cannot reach it while the channel plays).
RewriteWave:
    xor a
    ldh [rNR30], a
LoadWave:
    ld hl, _AUD3WAVERAM
    ldh a, [hFrame]
    ld c, 16
.byte:
    ld [hl+], a
    add $13
    dec c
    jr nz, .byte
    ld a, $80
    ldh [rNR30], a
    ret

SECTION "hram", HRAM
hFrame: ds 1
