; model: CGB
; Square 1's DAC turned off (NR12 = $08) at 48 M-cycle offsets while squares 1 and 2 play:
; PCM12 reads square 1 as 0 at once and square 2 as it plays; turning the DAC back on
; (NR12 = $F0) does not restart the channel (NR52 shows square 2 alone).
INCLUDE "hardware.inc"
    TITLE "DAC OFF PCM"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "DAC OFF PCM", 0

INCLUDE "dac_off_pcm.inc"
