; model: CGB
; length_enable at double speed: enabling square 1's length counter (one step left) at 48
; M-cycle offsets around the first DIV-APU event (DIV bit 5 falling) after a DIV write.
INCLUDE "hardware.inc"
    TITLE "LENGTH EN DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $3F
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $87
    ldh [rNR14], a
    ld bc, 570
    call ApuDelay
    ret
ProbeRead:
    ld a, $47
    ldh [rNR14], a
    ldh a, [rNR52]
    ret
Title:
    db "LENGTH EN DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
