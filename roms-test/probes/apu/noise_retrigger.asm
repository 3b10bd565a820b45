; model: CGB
; The noise channel (NR43 $08, 7-bit LFSR, a shift every 2 M-cycles) retriggered at 48 M-cycle
; offsets after its first trigger (fast restarts included), single speed; PCM34 read 28
; M-cycles after the restart. Shows the LFSR reset and the restart's delay.
INCLUDE "hardware.inc"
    TITLE "NOISE RETRIG"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "NOISE RETRIG", 0

INCLUDE "noise_retrigger.inc"
