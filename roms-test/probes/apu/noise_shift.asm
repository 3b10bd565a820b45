; model: CGB
; NR43 changed from $01 to $21 (shift 0 to 2, divisor code 1) at 48 offsets after
; the trigger, single speed; PCM34 read 30 M-cycles later. Shows that the LFSR follows the
; counter's new bit from where the counter stands.
INCLUDE "hardware.inc"
    TITLE "NOISE SHIFT"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $F0
    ldh [rNR42], a
    ld a, $01
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ret
ProbeRead:
    ld a, $21
    ldh [rNR43], a
    ld b, 7
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE SHIFT", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
