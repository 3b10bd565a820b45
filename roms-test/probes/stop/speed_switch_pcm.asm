; model: CGB
; A running square channel across the speed switch, read through PCM12. Step s (0-15): at
; single speed, DIV is reset, the APU restarted, square 1 started (duty 50 %, frequency
; $7FE: a duty step every 4 APU cycles), 40 M-cycles pass, STOP switches to double speed, and
; s M-cycles after the switch PCM12 is read. Steps 16-31 do the same from double speed
; switching back. Shows where the switch's pause leaves the channel's duty position.

INCLUDE "hardware.inc"

    TITLE "SPSW PCM"
    CGB_FLAG $C0

DEF CHANNEL EQU 1
INCLUDE "speed_switch_pcm.inc"

Title:
    db "SPSW PCM", 0
