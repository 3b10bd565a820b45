; model: CGB
; `dac_off_pcm` at double speed (96 offsets).
INCLUDE "hardware.inc"
    TITLE "DAC OFF PCM DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "DAC OFF PCM DS", 0

INCLUDE "dac_off_pcm.inc"
