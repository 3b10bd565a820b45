; model: CGB
; NR43 changed from $0A to $1A (shift 0 to 1, divisor code 2, 7-bit) at 48 offsets after
; the trigger, single speed; PCM34 read 40 M-cycles later. Shows the LFSR shifting at once
; when the write makes the new counter bit a rising edge, then following that bit.
INCLUDE "hardware.inc"
    TITLE "NOISE SHIFT7"
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
    ld a, $1A
    ldh [rNR43], a
    ld b, 10
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE SHIFT7", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
