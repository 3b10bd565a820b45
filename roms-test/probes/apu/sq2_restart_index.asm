; model: CGB
; A running square 2 ($7FC, 4 M-cycles per duty step, duty 50 %) retriggered with frequency
; bit 10 clear (NR24 = $83: $3FC) at 48 M-cycle offsets, single speed; PCM12 read at once and
; the level shown. Shows the CGB-E's restart quirk: the duty step moves one on.
INCLUDE "hardware.inc"
    TITLE "SQ2 RESTART IDX"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $80
    ldh [rNR21], a
    ld a, $F0
    ldh [rNR22], a
    ld a, $FC
    ldh [rNR23], a
    ld a, $87
    ldh [rNR24], a
    ret
ProbeRead:
    ld a, $83
    ldh [rNR24], a
    ldh a, [rPCM12]
    ret
Title:
    db "SQ2 RESTART IDX", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
