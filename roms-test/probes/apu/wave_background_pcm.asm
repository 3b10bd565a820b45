; model: CGB
; The wave channel triggered with its DAC off, the DAC turned on (frequency $7F8, ramp wave),
; so that it counts in the background; then read through PCM34 at 48 M-cycle offsets,
; single speed: a channel counting in the background is off, and PCM34 shows 0 for it.
INCLUDE "hardware.inc"
    TITLE "WAVE BG PCM"
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
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE BACKGROUND PCM", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
