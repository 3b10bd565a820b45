; model: CGB
; The noise channel across the speed switch, read through PCM34 (speed_switch_pcm.inc): NR43
; 0 (the fastest LFSR clock), so the reads follow the LFSR's output bit by bit. Step s (0-15): s
; M-cycles after a switch to double speed begun 40 M-cycles after the trigger; steps 16-31 the
; same switching back. Shows where the switch's pause leaves channel 4's LFSR.

INCLUDE "hardware.inc"

    TITLE "SPSW PCM NOISE"
    CGB_FLAG $C0

DEF CHANNEL EQU 4
INCLUDE "speed_switch_pcm.inc"

Title:
    db "SPSW PCM NOISE", 0
