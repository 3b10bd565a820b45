; model: CGB
; NR43 changed from $01 to $03 (divisor code 1 to 3, shift 0) at 48 offsets
; after the trigger, single speed; PCM34 read 30 M-cycles later. Shows the counter keeping
; its phase and the countdown realigning when the write lands on a counter step.
INCLUDE "hardware.inc"
    TITLE "NOISE DIVISOR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "NOISE DIVISOR", 0

INCLUDE "noise_divisor.inc"
