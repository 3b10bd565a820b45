; model: CGB
; The noise channel's first LFSR shifts after a trigger in 7-bit mode (NR43 $09, a shift
; every 4 M-cycles), read through PCM34 (high nibble) at 60 M-cycle offsets at single speed.
; Shows the first shift's delay and the short sequence's first bits.
INCLUDE "hardware.inc"
    TITLE "NOISE TRIGGER 7"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 60
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $F0
    ldh [rNR42], a
    ld a, $09
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ret
ProbeRead:
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE TRIGGER 7", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
