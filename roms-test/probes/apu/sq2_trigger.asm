; model: CGB
; Square 2's first duty steps after a trigger, read through PCM12 (high nibble) at 48
; M-cycle offsets at single speed: duty 12.5 % at frequency $7FC (4 M-cycles per duty step),
; volume 15. Shows the trigger-to-first-step delay and the duty position.
INCLUDE "hardware.inc"
    TITLE "SQ2 TRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "SQ2 TRIGGER", 0

INCLUDE "sq2_trigger.inc"
