; model: CGB
; The noise counter running in the background: triggered with its DAC off
; (NR42 $00, NR43 $09, 7-bit), then the DAC on and a trigger at 48 offsets, single speed; PCM34 read
; 28 M-cycles later. Shows the first shift following the counter that ran meanwhile.
INCLUDE "hardware.inc"
    TITLE "NOISE BACKGROUN"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    xor a
    ldh [rNR42], a
    ld a, $09
    ldh [rNR43], a
    ld a, $80
    ldh [rNR44], a
    ld a, $F0
    ldh [rNR42], a
    ret
ProbeRead:
    ld a, $80
    ldh [rNR44], a
    ld b, 6
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM34]
    ret
Title:
    db "NOISE BACKGROUND", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
