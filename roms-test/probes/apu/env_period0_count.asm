; model: CGB
; An envelope's period counter runs on while NRx2's period is 0: square 1 triggered with
; period 0, then NR12 written to period 1 after 0 to 9 envelope periods (10 offsets, one
; envelope period each), volume read through PCM12 at one fixed time. The first step after
; the write comes when the 3-bit counter, counting down from 0 since the trigger and wrapping,
; reaches 0 again, not a whole period after the write (SameBoy's `volume_countdown`).
INCLUDE "hardware.inc"
    TITLE "ENV PERIOD0 CNT"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 10
DEF DOUBLE_SPEED EQU 0
DEF LEAD_DELAY EQU 571
DEF PERIOD_DELAY EQU 2341

SECTION "title", ROM0
Title:
    db "ENV PERIOD0 COUNT", 0

INCLUDE "env_period0_count.inc"
