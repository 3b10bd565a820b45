; model: CGB
; The wave channel triggered with its DAC off, the DAC turned on (frequency $7F8, ramp wave),
; so that it counts in the background; then power cycled (NR52 off, on) at 48 M-cycle
; offsets, single speed, then the DAC turned on and the channel triggered, PCM34 read at
; once: power-off ends the background counting and clears the sample buffer (the first sample
; is 0).
INCLUDE "hardware.inc"
    TITLE "WAVE BG NR52"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    INCLUDE "wave_pulsed.inc"
    ld a, $80
    ldh [rNR30], a
    ret
ProbeRead:
    INCLUDE "wave_nr52_restart.inc"
Title:
    db "WAVE BACKGROUND NR52", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
