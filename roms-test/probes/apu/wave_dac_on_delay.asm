; model: CGB
; The wave channel triggered with its DAC off (frequency $7F8, ramp wave), the DAC turned on at
; 48 M-cycle offsets after the trigger, single speed, then retriggered and PCM34 read at one
; fixed time after the first trigger (later than every DAC-on). The countdown waits while the
; DAC is off and runs from the DAC-on, so the background reads (at the bus address) move
; with the offset.
INCLUDE "hardware.inc"
    TITLE "WAVE DACDLY"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

INCLUDE "wave_dac_on_delay.inc"
Title:
    db "WAVE DAC ON DELAY", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
