; model: CGB
; A wave RAM write (0 to FF3F) while the wave channel plays (frequency $7F8, ramp wave with no
; zero byte) at 48 M-cycle offsets after its trigger, single speed; then the channel stops and
; the probe shows which byte the write reached. On a CGB it goes to the byte the channel is
; reading.
INCLUDE "hardware.inc"
    TITLE "WAVE RAM WRITE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "WAVE RAM WRITE", 0

INCLUDE "wave_ram_write.inc"
