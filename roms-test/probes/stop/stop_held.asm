; model: CGB
; STOP with a button held, on a CGB (see stop_held.inc).

INCLUDE "hardware.inc"

    TITLE "STOP HELD"
    CGB_FLAG $C0

INCLUDE "stop_held.inc"

Title:
    db "STOP HELD", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
