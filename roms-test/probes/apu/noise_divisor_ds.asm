; model: CGB
; noise_divisor at double speed (96 offsets).
INCLUDE "hardware.inc"
    TITLE "NOISE DIVISOR D"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $F0
    ldh [rNR42], a
    ld a, $01
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ret
ProbeRead:
    ld a, $03
    ldh [rNR43], a
    ld b, 7
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE DIVISOR DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
