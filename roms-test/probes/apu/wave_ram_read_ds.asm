; model: CGB
; wave_ram_read at double speed over 96 offsets (one M-cycle is one 2 MHz APU cycle): FF30
; read while the wave channel plays returns the byte the channel is reading.
INCLUDE "hardware.inc"
    TITLE "WAVE READ DS"
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
    ldh a, [$FF30]
    ret
Title:
    db "WAVE READ DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
