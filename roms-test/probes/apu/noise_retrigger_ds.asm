; model: CGB
; noise_retrigger at double speed over 96 offsets (NR43 $18): the restart's
; countdown by the 2 MHz alignment (odd alignments only exist at double speed).
INCLUDE "hardware.inc"
    TITLE "NOISE RETRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $F0
    ldh [rNR42], a
    ld a, $18
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ret
ProbeRead:
    ld a, $80
    ldh [rNR44], a
    ld b, 7
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE RETRIG DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
