; model: CGB
; `power_on_div` at double speed (96 offsets), where the DIV-APU event follows DIV bit 5.
INCLUDE "hardware.inc"
    TITLE "POWER ON DIV DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1
DEF SETUP_DELAY EQU 280
DEF READ_DELAY EQU 400


SECTION "title", ROM0
Title:
    db "POWER ON DIV DS", 0

INCLUDE "power_on_div.inc"
