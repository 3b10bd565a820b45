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

INCLUDE "wave_dac_on.inc"
Title:
    db "WAVE DAC ON DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
