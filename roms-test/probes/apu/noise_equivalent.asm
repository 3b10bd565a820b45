; model: CGB
; Equivalent frequencies: NR43 $0A (code 2, shift 0, 7-bit) changed to $19 (code 1,
; shift 1; the same period) at 48 offsets after the trigger, single speed; PCM34 read 40
; M-cycles later. Shows the phase the counter's other bit gives the same frequency.
INCLUDE "hardware.inc"
    TITLE "NOISE EQUIV"
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
    ld a, $19
    ldh [rNR43], a
    ld b, 10
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE EQUIV", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
