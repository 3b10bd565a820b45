; model: CGB
; wave_stop_startup at double speed over 80 offsets: NR30 off and on, then a retrigger,
; PCM34 read at once. Shows the sample buffer a stop leaves, in 2 MHz APU cycles.
INCLUDE "hardware.inc"
    TITLE "WAVE STOP DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 80
DEF DOUBLE_SPEED EQU 1

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
    db "WAVE STOP DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
