; model: CGB
; Wave RAM read (FF30) while the wave channel plays at frequency $7FE (a sample read every
; 4 T-cycles, two per M-cycle) at 48 M-cycle offsets after its trigger, single speed. Shows
; which byte the CPU reaches in each M-cycle when the channel reads faster than the CPU.
INCLUDE "hardware.inc"
    TITLE "WAVE READ FAST"
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
    ld a, $FE
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    ldh a, [$FF30]
    ret
Title:
    db "WAVE READ FAST", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
