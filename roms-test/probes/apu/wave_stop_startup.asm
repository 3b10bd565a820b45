; model: CGB
; The wave channel stopped (NR30 DAC off and on) and retriggered at 40 M-cycle offsets after
; its trigger, single speed; PCM34 read 32 M-cycles later. Shows which sample buffer a restart
; after a stop during or after the start-up delay plays first.
INCLUDE "hardware.inc"
    TITLE "WAVE STOP"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 40
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    ld a, $80
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $C0
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    xor a
    ldh [rNR30], a
    ld a, $80
    ldh [rNR30], a
    ld a, $87
    ldh [rNR34], a
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE STOP", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
