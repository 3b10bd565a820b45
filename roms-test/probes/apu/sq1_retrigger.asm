; model: CGB
; Retriggering a running square 1: triggered at frequency $7FC, retriggered 40 M-cycles
; later at $7F8 (8 M-cycles per duty step), duty 12.5 %, read through PCM12 at 60 M-cycle
; offsets at single speed. Shows the restart delay of a running channel (shorter than a
; first start's) and that the duty step is kept.
INCLUDE "hardware.inc"
    TITLE "SQ1 RETRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 60
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $00
    ldh [rNR11], a
    ld a, $F0
    ldh [rNR12], a
    ld a, $FC
    ldh [rNR13], a
    ld a, $87
    ldh [rNR14], a
    ld b, 9
.wait:
    dec b
    jr nz, .wait
    ld a, $F8
    ldh [rNR13], a
    ld a, $87
    ldh [rNR14], a
    ret
ProbeRead:
    ldh a, [rPCM12]
    ret
Title:
    db "SQ1 RETRIGGER", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
