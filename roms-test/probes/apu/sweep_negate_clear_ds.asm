; model: CGB
; sweep_negate_clear at double speed over 32 offsets (one 2 MHz APU cycle each): negate
; cleared 3 to 34 M-cycles after a trigger with shift 3; NR52 read at once. Shows the
; trigger calculation's delay in APU cycles.
INCLUDE "hardware.inc"
    TITLE "SWEEP NEGCLR DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 32
DEF DOUBLE_SPEED EQU 1

SECTION "title", ROM0
Title:
    db "SWEEP NEG CLEAR DS", 0

INCLUDE "sweep_negate_clear.inc"
