; model: CGB
; Square 2's first duty steps after a trigger, read through PCM12 (high nibble) at 48
; M-cycle offsets at single speed: duty 12.5 % at frequency $7FC (4 M-cycles per duty step),
; volume 15. Shows the trigger-to-first-step delay and the duty position.
INCLUDE "hardware.inc"
    TITLE "SQ2 TRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $00
    ldh [rNR21], a
    ld a, $F0
    ldh [rNR22], a
    ld a, $FC
    ldh [rNR23], a
    ld a, $87
    ldh [rNR24], a
    ret
ProbeRead:
    ldh a, [rPCM12]
    ret
Title:
    db "SQ2 TRIGGER", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
