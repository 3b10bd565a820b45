; model: CGB
; Wave RAM read (FF30) while the wave channel plays (frequency $7F8, ramp wave) at 48 M-cycle
; offsets after its trigger, single speed. On a CGB the read returns the byte the channel is
; reading: shows its position over time.
INCLUDE "hardware.inc"
    TITLE "WAVE RAM READ"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    ld a, $80
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $F8
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    ldh a, [$FF30]
    ret
Title:
    db "WAVE RAM READ", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
