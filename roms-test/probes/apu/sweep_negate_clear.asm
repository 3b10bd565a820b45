; model: CGB
; Square 1 triggered with a negating sweep (NR10 $1B: period 1, down, shift 3) at $400; NR10
; then rewritten without negate ($84: period 0, up) 3 to 26 M-cycles after the trigger, single
; speed; NR52 read at once. Clearing negate turns the channel off only once the trigger's
; calculation (in negate mode) has completed, a few cycles after the trigger.
INCLUDE "hardware.inc"
    TITLE "SWEEP NEG CLEAR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 24
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "SWEEP NEG CLEAR", 0

INCLUDE "sweep_negate_clear.inc"
