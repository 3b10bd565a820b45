; model: CGB
; sq1_trigger at double speed over 96 offsets (one M-cycle is one 2 MHz APU cycle).
INCLUDE "hardware.inc"
    TITLE "SQ1 TRIGGER DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    ld a, $00
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $FC
    ldh [rNR13], a
    ld a, $87
    ldh [rNR14], a
    ret
ProbeRead:
    ldh a, [rPCM12]
    ret
Title:
    db "SQ1 TRIGGER DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
