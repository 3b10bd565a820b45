; model: CGB
; The wave channel triggered with its DAC off, the DAC turned on (frequency $7F8, ramp wave),
; then at 48 M-cycle offsets later the DAC turned off and on again, double speed (one APU cycle each); retriggered
; 8 M-cycles after that (one sample period) and PCM34 read at once. Turning the DAC off ends
; the background counting, and turning it on again does not restart it: the sample buffer
; keeps the byte of the last read before the DAC-off.
INCLUDE "hardware.inc"
    TITLE "WAVE DACOFFD"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1

INCLUDE "wave_dac_off_on.inc"
Title:
    db "WAVE DAC OFF ON DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
