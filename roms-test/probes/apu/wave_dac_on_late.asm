; model: CGB
; As wave_dac_on (triggered with the DAC off, the DAC turned on, retriggered at 48 M-cycle
; offsets later, single speed, frequency $7F8, ramp wave), but PCM34 read after a nop after
; the retrigger: a background read already under way when the retrigger lands still lands
; and replaces the sample being played.
INCLUDE "hardware.inc"
    TITLE "WAVE DACLATE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

INCLUDE "wave_dac_on_late.inc"
Title:
    db "WAVE DAC ON LATE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
