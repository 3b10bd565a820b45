; model: CGB
; The wave channel across the speed switch, read through PCM34 (speed_switch_pcm.inc): wave RAM
; $01 $23 ... $EF $11 $33 ... $FF, frequency $7FE (a sample step every M-cycle), so each read
; tells the sample position. Step s (0-15): s M-cycles after a switch to double speed begun 40
; M-cycles after the trigger; steps 16-31 the same switching back. Shows where the switch's
; pause leaves channel 3's position.

INCLUDE "hardware.inc"

    TITLE "SPSW PCM WAVE"
    CGB_FLAG $C0

DEF CHANNEL EQU 3
INCLUDE "speed_switch_pcm.inc"

Title:
    db "SPSW PCM WAVE", 0
