; The debugger's test program: a main loop that calls a counter routine twice and halts
; until VBlank, whose handler counts frames. Labels and WRAM variables for breakpoints,
; watchpoints and conditions.

INCLUDE "hardware.inc"

    TITLE "BS DEBUG COUNTER"

SECTION "vblank vector", ROM0[$40]
    jp VBlank

SECTION "entry", ROM0[$100]
    nop
    jp Main

SECTION "main", ROM0[$150]
Main:
    di
    ld sp, $E000
    xor a
    ld [wCounter], a
    ld [wFrames], a
    ld a, IEF_VBLANK
    ldh [rIE], a
    ei
MainLoop:
    call Increment
    call Increment
    halt
    nop
    jr MainLoop

Increment:
    ld a, [wCounter]
    inc a
    ld [wCounter], a
    ret

VBlank:
    push af
    ld a, [wFrames]
    inc a
    ld [wFrames], a
    pop af
    reti

SECTION "variables", WRAM0[$C000]
wCounter: ds 1
wFrames: ds 1
