; model: CGB
; The wave channel triggered with its DAC off (NR30 = 0: pulsed but silent), the DAC then
; turned on, retriggered at 48 M-cycle offsets later, double speed (one APU cycle each) (frequency $7F8, ramp wave);
; PCM34 read at once. Shows the sample buffer a pulsed channel whose DAC came on read while
; counting in the background.
INCLUDE "hardware.inc"
    TITLE "WAVE DACON D"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    xor a
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $F8
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ld a, $80
    ldh [rNR30], a
    ret
ProbeRead:
    ld a, $87
    ldh [rNR34], a
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE DAC ON DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
