; model: CGB
; The wave channel triggered with its DAC off, the DAC turned on (frequency $7F8, ramp wave),
; so that it counts in the background; then read by the CPU at FF3B at 48 M-cycle offsets,
; single speed: the channel is off, so the CPU reads the byte it addresses ($98), not one the
; channel picks.
INCLUDE "hardware.inc"
    TITLE "WAVE BG RAM"
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
    ldh a, [$FF3B]
    ret
Title:
    db "WAVE BACKGROUND RAM", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
