; model: CGB
; STOP with no button held, with and without an interrupt pending, on a CGB (stop_pending.inc).

INCLUDE "hardware.inc"

    TITLE "STOP PENDING"
    CGB_FLAG $C0

INCLUDE "stop_pending.inc"

Title:
    db "STOP PENDING", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
