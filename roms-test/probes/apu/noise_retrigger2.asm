; model: CGB
; The noise channel at divisor code 2 (NR43 $0A, 7-bit, a shift every 8 M-cycles)
; retriggered at 48 offsets, single speed; PCM34 read 56 M-cycles later. Shows that the
; restart keeps the counter and reloads only its countdown.
INCLUDE "hardware.inc"
    TITLE "NOISE RETRIG2"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $F0
    ldh [rNR42], a
    ld a, $0A
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ret
ProbeRead:
    ld a, $80
    ldh [rNR44], a
    ld b, 13
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE RETRIG2", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
