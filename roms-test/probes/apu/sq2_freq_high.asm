; model: CGB
; NR24 written without a trigger, taking square 2's frequency from $7FC to $6FC (bits 8-10
; from 7 to 6), at 48 M-cycle offsets after the trigger: a write in the two 2 MHz cycles
; after a duty step's reload undoes that step (the countdown keeps the old length; SameBoy's
; `did_tick` rule, CGB-D/E; UNVERIFIED).
INCLUDE "hardware.inc"
    TITLE "SQ2 FREQ HIGH"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF FIRST_DELAY EQU 1
DEF STEP_DELAY EQU 34

SECTION "title", ROM0
Title:
    db "SQ2 FREQ HIGH", 0

INCLUDE "sq2_freq_high.inc"
