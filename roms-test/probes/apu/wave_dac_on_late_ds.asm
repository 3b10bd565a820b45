; model: CGB
; As wave_dac_on (triggered with the DAC off, the DAC turned on, retriggered at 48 M-cycle
; offsets later, double speed (one APU cycle each), frequency $7F8, ramp wave), but PCM34 read two M-cycles after
; the retrigger: a background read already under way when the retrigger lands still lands
; and replaces the sample being played.
INCLUDE "hardware.inc"
    TITLE "WAVE DACLATD"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1

INCLUDE "wave_dac_on_late.inc"
Title:
    db "WAVE DAC LATE DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
