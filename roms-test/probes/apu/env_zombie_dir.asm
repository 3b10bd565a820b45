; model: CGB
; Square 1 (NR12 $F1) with its envelope armed: NR12 written $F9 (direction up, a zombie
; write) at 48 M-cycle offsets around the 8th DIV-APU event, single speed; PCM12 read just
; after. The direction change reflects the volume the step left, or the one before it.
INCLUDE "hardware.inc"
    TITLE "ENV ZOMBIE DIR"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $C0
    ldh [rNR11], a
    ld a, $F1
    ldh [rNR12], a
    ld a, $FF
    ldh [rNR13], a
    ld a, $87
    ldh [rNR14], a
    ld bc, 2325
    call ApuDelay
    ret
ProbeRead:
    ld a, $F9
    ldh [rNR12], a
    ldh a, [rPCM12]
    ret
Title:
    db "ENV ZOMBIE DIR", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
