; model: CGB
; Square 1's first duty steps after a trigger, read through PCM12 at 48 M-cycle offsets at
; single speed: duty 12.5 % at frequency $7FC (4 M-cycles per duty step), volume 15, no
; envelope. Shows when the one high step comes, i.e. the trigger-to-first-step delay and the
; step position.
INCLUDE "hardware.inc"
    TITLE "SQ1 TRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "SQ1 TRIGGER", 0

INCLUDE "sq1_trigger.inc"
