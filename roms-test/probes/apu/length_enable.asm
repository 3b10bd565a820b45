; model: CGB
; Enabling square 1's length counter (one step left) without a trigger, at 48 M-cycle offsets
; around the first DIV-APU event after a DIV write, single speed; NR52 read right after. In
; the half of the frame sequencer's period whose next step does not clock lengths, enabling
; clocks the counter once and turns the channel off.
INCLUDE "hardware.inc"
    TITLE "LENGTH ENABLE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF SETUP_DELAY EQU 279

SECTION "title", ROM0
Title:
    db "LENGTH ENABLE", 0

INCLUDE "length_enable.inc"
