; model: CGB
; Wave RAM written through FF31 (ld [hl]) while the wave channel plays (frequency $7F0, ramp wave) at 96 M-cycle offsets after its trigger, double speed (wave_ram_addr.inc).
INCLUDE "hardware.inc"
    TITLE "WAVE RAM ADDR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1
DEF WRITE EQU 1

SECTION "title", ROM0
Title:
    db "WAVE RAM WRITE ADDR DS", 0

INCLUDE "wave_ram_addr.inc"
