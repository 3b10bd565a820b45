; model: CGB
; DIV across the speed switch. Step s (0-15): DIV is reset, s M-cycles pass, the CPU
; switches to double speed (KEY1, STOP), then DIV is read 48 + s M-cycles after the switch
; ends, and after another 64; steps 16-31 do the same switching back to single speed.
; Shows where the switch leaves the system counter (Pan Docs: STOP resets DIV) and how fast
; DIV counts at each speed.

INCLUDE "hardware.inc"

    TITLE "SPSW DIV"
    CGB_FLAG $C0

DEF STEPS EQU 16

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    xor a
    ldh [rIE], a
    ldh [rIF], a
    ld b, 0
.sweep:
    ; to the speed the step starts from: single for 0-15, double for 16-31
    ldh a, [rKEY1]
    rlca
    and 1
    ld c, a
    ld a, b
    cp STEPS
    ld a, 0
    adc 0
    xor 1 ; 1 = double wanted
    cp c
    jr z, .ready
    ld a, 1
    ldh [rKEY1], a
    stop
.ready:
    ld a, 1
    ldh [rKEY1], a
    ldh [rDIV], a
    ld a, b
    and STEPS - 1
    call DelayA
    stop
    ld a, b
    and STEPS - 1
    add 48 - SWEEP_DELAY_FIXED
    call DelayA
    ldh a, [rDIV]
    ld c, a
    ld a, 64 - SWEEP_DELAY_FIXED - 3
    call DelayA
    ldh a, [rDIV]
    push af
    ld a, c
    push bc
    sla b
    call StoreResult
    pop bc
    pop af
    push bc
    sla b
    inc b
    call StoreResult
    pop bc
    inc b
    ld a, b
    cp 2 * STEPS
    jr nz, .sweep
    ld de, Title
    ld c, 4 * STEPS
    jp ProbeShow

Title:
    db "SPSW DIV", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
