; model: CGB
; Square 1's envelope (NR12 $F1) armed by the 7th DIV-APU event; DIV written at 48 M-cycle
; offsets around the moment DIV bit 4 next sets, single speed; PCM12 read just after. A write
; while bit 4 is set is the 8th event and steps the envelope at once; one before moves it
; 2048 M-cycles on.
INCLUDE "hardware.inc"
    TITLE "ENV DIV WRITE"
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
    ld bc, 2178
    call ApuDelay
    ret
ProbeRead:
    ldh [rDIV], a
    nop
    ldh a, [rPCM12]
    ret
Title:
    db "ENV DIV WRITE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
