; model: CGB
; The noise channel at divisor code 0 (NR43 $08, 7-bit) retriggered at 96 offsets at
; double speed; PCM34 read 16 M-cycles later. Shows the code-0 restart countdown and seed.
INCLUDE "hardware.inc"
    TITLE "NOISE RETRIG0 D"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $F0
    ldh [rNR42], a
    ld a, $08
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ret
ProbeRead:
    ld a, $80
    ldh [rNR44], a
    ld b, 4
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE RETRIG0 DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
