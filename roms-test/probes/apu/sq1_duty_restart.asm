; model: CGB
; A running square 1 ($7FC, duty 12.5 %) gets duty 75 % (NR11) and a retrigger at $7F8 at
; 48 M-cycle offsets, single speed; PCM12 read 10 M-cycles later. Shows the duty and frequency
; taken across a restart, with the duty step kept.
INCLUDE "hardware.inc"
    TITLE "SQ1 DUTY RESTRT"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

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
    ld a, $C0
    ldh [rNR11], a
    ld a, $F8
    ldh [rNR13], a
    ld a, $87
    ldh [rNR14], a
    ld b, 2
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM12]
    ret
Title:
    db "SQ1 DUTY RESTRT", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
