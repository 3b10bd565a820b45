; model: CGB
; Square 2 played at $7FC (4 M-cycles per duty step, duty 50 %), stopped by its DAC (NR22 = 0)
; at 48 M-cycle offsets, then triggered again with frequency bit 10 clear ($3FC, 1,028 M-cycles
; per step), single speed; PCM12 read just after the first step. Shows the CGB-E's restart of a
; stopped square: one duty step on when the old countdown was short.
INCLUDE "hardware.inc"
    TITLE "SQ2 START INDEX"
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
    xor a
    ldh [rNR22], a
    ld a, $F0
    ldh [rNR22], a
    ld a, $83
    ldh [rNR24], a
    ld bc, 172
    call ApuDelay
    ldh a, [rPCM12]
    ret
Title:
    db "SQ2 START INDEX", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
