; model: CGB
; `env_period0_count` at double speed (an envelope period is twice as many M-cycles).
INCLUDE "hardware.inc"
    TITLE "ENV PERIOD0 DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 10
DEF DOUBLE_SPEED EQU 1
DEF LEAD_DELAY EQU 1143
DEF PERIOD_DELAY EQU 4681

SECTION "title", ROM0
Title:
    db "ENV PERIOD0 COUNT DS", 0

INCLUDE "env_period0_count.inc"
