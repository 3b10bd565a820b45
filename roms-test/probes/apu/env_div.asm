; model: CGB
; Square 1's first envelope step (NR12 $F1: volume 15 down, period 1) against the frame
; sequencer: PCM12 read at 48 M-cycle offsets around the 8th DIV-APU event after a DIV write
; (DIV bit 4 falling), single speed, duty 75 % at frequency $7FF. Shows the M-cycle at which
; the volume drops from 15 to 14.
INCLUDE "hardware.inc"
    TITLE "ENVELOPE DIV"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF SETUP_DELAY EQU 2325

SECTION "title", ROM0
Title:
    db "ENVELOPE DIV", 0

INCLUDE "env_div.inc"
