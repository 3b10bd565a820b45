; model: CGB
; env_div at double speed (the frame sequencer on DIV bit 5): PCM12 read at 48 M-cycle
; offsets around the 8th DIV-APU event. Shows the M-cycle at which the volume drops.
INCLUDE "hardware.inc"
    TITLE "ENVELOPE DIV DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1
DEF SETUP_DELAY EQU 4665

SECTION "title", ROM0
Title:
    db "ENVELOPE DIV DS", 0

INCLUDE "env_div.inc"
