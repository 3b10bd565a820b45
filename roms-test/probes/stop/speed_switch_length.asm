; model: CGB
; The APU's length counter across a switch to double speed. Step s (0-15): at single speed,
; DIV is reset, square 2 is started with 12 length steps left, 256s M-cycles pass (two
; frame-sequencer periods in all), then STOP switches to double speed; after the switch's
; pause NR52 is polled (10 M-cycles a poll) until square 2 stops, and the number of polls is
; shown (high byte, low byte), then the CPU switches back. Shows the DIV-APU events the
; switch's DIV reset and its pause take (DIV bit 12, then bit 13 at double speed).

INCLUDE "hardware.inc"

    TITLE "SPSW LENGTH"
    CGB_FLAG $C0

DEF STEPS EQU 16

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call ResetStores
    xor a
    ldh [rIE], a
    ldh [rIF], a
    ldh [rNR52], a
    ld a, $80
    ldh [rNR52], a
    ld a, $FF
    ldh [rNR51], a
    ld a, $77
    ldh [rNR50], a
    ld b, 0
.sweep:
    ldh [rDIV], a
    ; the APU on again just after the DIV reset: the frame sequencer starts from step 0
    ; wherever the boot left it
    xor a
    ldh [rNR52], a
    ld a, $80
    ldh [rNR52], a
    ld a, 64 - 12
    ldh [rNR21], a
    ld a, $F0
    ldh [rNR22], a
    ld a, $C0
    ldh [rNR24], a
    ld c, b
    inc c
.wait:
    dec c
    jr z, .switch
    ld a, 105
    call DelayA
    ld a, 105
    call DelayA
    jr .wait
.switch:
    ld a, 1
    ldh [rKEY1], a
    stop
    ld hl, 0
.poll:
    ldh a, [rNR52]
    inc hl
    bit 1, a
    jr nz, .poll
    push hl
    ld a, h
    call StoreNext
    pop hl
    ld a, l
    call StoreNext
    ld a, 1
    ldh [rKEY1], a
    stop
    inc b
    ld a, b
    cp STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 2 * STEPS
    jp ProbeShow

Title:
    db "SPSW LENGTH", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
