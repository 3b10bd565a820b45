; model: CGB
; The wave channel at frequency $7F0 (8 M-cycles per sample, ramp wave) gets NR33 = $F8
; (4 M-cycles per sample) at 48 M-cycle offsets after its trigger, single speed; PCM34 read 10
; M-cycles after the write. Shows that the new period starts at the next sample read.
INCLUDE "hardware.inc"
    TITLE "WAVE FREQ"
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
    ld a, $F0
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    ld a, $F8
    ldh [rNR33], a
    ld b, 2
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE FREQ CHANGE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
