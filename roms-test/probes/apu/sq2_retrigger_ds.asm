; model: CGB
; A running square 2 (frequency $7FC, duty 12.5 %) retriggered at 96 M-cycle offsets at
; double speed (one 2 MHz APU cycle each); PCM12 read 6 M-cycles later. Shows the restart
; delay against the APU's 1 MHz phase and the kept duty step.
INCLUDE "hardware.inc"
    TITLE "SQ2 RETRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $00
    ldh [rNR21], a
    ld a, $F0
    ldh [rNR22], a
    ld a, $FC
    ldh [rNR23], a
    ld a, $87
    ldh [rNR24], a
    ret
ProbeRead:
    ld a, $87
    ldh [rNR24], a
    nop
    nop
    nop
    nop
    nop
    ldh a, [rPCM12]
    ret
Title:
    db "SQ2 RETRIG DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
