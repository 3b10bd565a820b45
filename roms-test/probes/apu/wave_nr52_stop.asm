; model: CGB
; The wave channel (frequency $7F8, ramp wave) stopped by an APU power cycle (NR52) at 48
; M-cycle offsets after its trigger, then set up and triggered again, single speed; PCM34
; read at once. Shows what sample buffer the power cycle leaves for the restart.
INCLUDE "hardware.inc"
    TITLE "WAVE NR52 STOP"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    ld a, $80
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $F8
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    INCLUDE "wave_nr52_restart.inc"
Title:
    db "WAVE NR52 STOP", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
