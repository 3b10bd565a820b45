; model: CGB
; wave_retrigger at double speed over 96 offsets: the wave channel (frequency $7F8) retriggered
; after its first trigger, PCM34 read at once. Shows the restart's delay and the kept sample
; buffer in 2 MHz APU cycles.
INCLUDE "hardware.inc"
    TITLE "WAVE RETRIG DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

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
    ld a, $87
    ldh [rNR34], a
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE RETRIG DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
