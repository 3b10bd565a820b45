; model: CGB
; Square 1 (NR12 $F1) with its envelope armed: NR12 written $F0 (period 0, a zombie write)
; at 48 M-cycle offsets around the 8th DIV-APU event, single speed; PCM12 read just after.
; Before the step the write disarms it (the volume stays 15); after it, 14 stays.
INCLUDE "hardware.inc"
    TITLE "ENV ZOMBIE TICK"
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
    ld a, $F0
    ldh [rNR12], a
    ldh a, [rPCM12]
    ret
Title:
    db "ENV ZOMBIE TICK", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
