; model: CGB
; The noise channel's first LFSR shifts after a trigger, read through PCM34 (high nibble) at
; 60 M-cycle offsets at single speed: NR43 $01 (a shift every 4 M-cycles), 15-bit LFSR,
; volume 15. Shows the delay to the first shift and the output sequence.
INCLUDE "hardware.inc"
    TITLE "NOISE TRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 60
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
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE TRIGGER", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
