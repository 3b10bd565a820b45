; model: CGB
; The noise channel (NR43 $0A, 7-bit) stopped by a DAC-off NR42 write at 48 offsets
; after its trigger, then its DAC on and a trigger, single speed; PCM34 read 56 M-cycles
; later. Shows the counter stopping where the DAC went off (divisor code not 0).
INCLUDE "hardware.inc"
    TITLE "NOISE DAC OFF"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $F0
    ldh [rNR42], a
    ld a, $0A
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ret
ProbeRead:
    xor a
    ldh [rNR42], a
    ld a, $F0
    ldh [rNR42], a
    ld a, $80
    ldh [rNR44], a
    ld b, 13
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE DAC OFF", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
