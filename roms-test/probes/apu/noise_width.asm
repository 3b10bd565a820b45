; model: CGB
; The noise channel (NR43 $00, a shift every 2 M-cycles, 15-bit) switched to the 7-bit LFSR at
; 48 M-cycle offsets after its trigger, single speed; PCM34 read 24 M-cycles later. Shows the
; output sequence after a width change mid-run.
INCLUDE "hardware.inc"
    TITLE "NOISE WIDTH"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "NOISE WIDTH", 0

INCLUDE "noise_width.inc"
