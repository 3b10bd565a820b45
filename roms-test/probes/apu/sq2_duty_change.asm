; model: CGB
; Square 2 (frequency $7F8, 8 M-cycles per duty step, duty 12.5 %) switched to duty 75 % at 48
; M-cycle offsets after its trigger, single speed; PCM12 read 4 M-cycles after the NR21 write.
; Shows that a duty change takes effect at once, at the current duty step.
INCLUDE "hardware.inc"
    TITLE "SQ2 DUTY CHANGE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    xor a
    ldh [rNR21], a
    ld a, $F0
    ldh [rNR22], a
    ld a, $F8
    ldh [rNR23], a
    ld a, $87
    ldh [rNR24], a
    ret
ProbeRead:
    ld a, $C0
    ldh [rNR21], a
    nop
    ldh a, [rPCM12]
    ret
Title:
    db "SQ2 DUTY CHANGE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
