; model: CGB
; Square 1 (NR12 $F1: volume 15 down, period 1) triggered at 48 M-cycle offsets around the
; 7th DIV-APU event after a DIV write (the one before the envelope's), single speed; PCM12
; read after the 8th. Shows that the envelope's period counts down at the 7th event and
; steps at the 8th: a trigger after the 7th waits a whole envelope period more.
INCLUDE "hardware.inc"
    TITLE "ENV TRIG LATE"
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
    ld bc, 2032
    call ApuDelay
    ret
ProbeRead:
    ld a, $87
    ldh [rNR14], a
    ld bc, 310
    call ApuDelay
    nop
    nop
    nop
    ldh a, [rPCM12]
    ret
Title:
    db "ENV TRIG LATE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
