; model: CGB
; The noise channel (NR43 $08, 7-bit) switched to the 15-bit LFSR at 48 offsets
; after its trigger, single speed; PCM34 read 24 M-cycles later.
INCLUDE "hardware.inc"
    TITLE "NOISE W 7TO15"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

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
    ld a, $00
    ldh [rNR43], a
    ld b, 6
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE W 7TO15", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
