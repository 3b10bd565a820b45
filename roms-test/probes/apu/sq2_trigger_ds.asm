; model: CGB
; sq2_trigger at double speed over 96 offsets (one M-cycle is one 2 MHz APU cycle): the
; trigger delay and the duty step's phase against the APU clock.
INCLUDE "hardware.inc"
    TITLE "SQ2 TRIGGER DS"
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
    ldh a, [rPCM12]
    ret
Title:
    db "SQ2 TRIGGER DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
