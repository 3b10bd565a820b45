; model: CGB
; Wave RAM written through FF31 (ld [hl]) while the wave channel plays (frequency $7F0, ramp wave) at 48 M-cycle offsets after its trigger, single speed (wave_ram_addr.inc).
INCLUDE "hardware.inc"
    TITLE "WAVE RAM ADDR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF WRITE EQU 1

SECTION "title", ROM0
Title:
    db "WAVE RAM WRITE ADDR", 0

INCLUDE "wave_ram_addr.inc"
