; model: CGB
; A running square channel across the speed switch, read through PCM12. Step s (0-15): at
; single speed, DIV is reset, the APU restarted, square 1 started (duty 50 %, frequency
; $7FE: a duty step every 4 APU cycles), 40 M-cycles pass, STOP switches to double speed, and
; s M-cycles after the switch PCM12 is read. Steps 16-31 do the same from double speed
; switching back. Shows where the switch's pause leaves the channel's duty position.

INCLUDE "hardware.inc"

    TITLE "SPSW PCM"
    CGB_FLAG $C0

DEF STEPS EQU 16
DEF rPCM12 EQU $FF76

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
    ld b, 0
.sweep:
    ; steps 0-15 start at single speed, 16-31 at double speed
    ldh a, [rKEY1]
    rlca
    and 1
    ld c, a
    ld a, b
    cp STEPS
    ld a, 0
    adc 0
    xor 1
    cp c
    jr z, .ready
    ld a, 1
    ldh [rKEY1], a
    stop
.ready:
    ldh [rDIV], a
    xor a
    ldh [rNR52], a
    ld a, $80
    ldh [rNR52], a
    ld a, $80
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $FE
    ldh [rNR13], a
    ld a, $87
    ldh [rNR14], a
    ld a, 40 - SWEEP_DELAY_FIXED
    call DelayA
    ld a, 1
    ldh [rKEY1], a
    stop
    ld a, b
    and STEPS - 1
    call DelayA
    ldh a, [rPCM12]
    call StoreNext
    inc b
    ld a, b
    cp 2 * STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 2 * STEPS
    jp ProbeShow

Title:
    db "SPSW PCM", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
