; model: CGB
; Enabling square 1's length counter (one step left) without a trigger, at 48 M-cycle offsets
; around the first DIV-APU event after a DIV write, single speed; NR52 read right after. In
; the half of the frame sequencer's period whose next step does not clock lengths, enabling
; clocks the counter once and turns the channel off.
INCLUDE "hardware.inc"
    TITLE "LENGTH ENABLE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $3F
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $87
    ldh [rNR14], a
    ld bc, 279
    call ApuDelay
    ret
ProbeRead:
    ld a, $47
    ldh [rNR14], a
    ldh a, [rNR52]
    ret
Title:
    db "LENGTH ENABLE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
