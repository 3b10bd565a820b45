; model: DMG
; STOP with a button held, on a DMG (see stop_held.inc).

INCLUDE "hardware.inc"

    TITLE "STOP HELD DMG"

INCLUDE "stop_held.inc"

Title:
    db "STOP HELD DMG", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
