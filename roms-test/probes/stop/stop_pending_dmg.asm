; model: DMG
; STOP with no button held, with and without an interrupt pending, on a DMG (stop_pending.inc).

INCLUDE "hardware.inc"

    TITLE "STOP PEND DMG"

INCLUDE "stop_pending.inc"

Title:
    db "STOP PENDING DMG", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
