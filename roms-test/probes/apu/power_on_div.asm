; model: CGB
; NR52 powered on at 48 M-cycle offsets across the rising edge of DIV bit 4, then square 2
; triggered with length 1 and length enabled, NR52 read after the first DIV-APU event: powered
; on while DIV bit 4 is set, the APU skips that event and starts with the frame sequencer's
; length half done (so enabling length clocks it at once), as SameBoy has it.
INCLUDE "hardware.inc"
    TITLE "POWER ON DIV"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF SETUP_DELAY EQU 133
DEF READ_DELAY EQU 200


SECTION "title", ROM0
Title:
    db "POWER ON DIV", 0

INCLUDE "power_on_div.inc"
