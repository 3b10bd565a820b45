; model: CGB
; The noise channel's first LFSR shifts after a trigger, read through PCM34 (high nibble) at
; 60 M-cycle offsets at single speed: NR43 $01 (a shift every 4 M-cycles), 15-bit LFSR,
; volume 15. Shows the delay to the first shift and the output sequence.
INCLUDE "hardware.inc"
    TITLE "NOISE TRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 60
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "NOISE TRIGGER", 0

INCLUDE "noise_trigger.inc"
