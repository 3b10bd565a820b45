; model: CGB
; The noise channel (NR43 $08, 7-bit LFSR, a shift every 2 M-cycles) retriggered at 48 M-cycle
; offsets after its first trigger (fast restarts included), single speed; PCM34 read 28
; M-cycles after the restart. Shows the LFSR reset and the restart's delay.
INCLUDE "hardware.inc"
    TITLE "NOISE RETRIG"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

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
    db "NOISE RETRIG", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
