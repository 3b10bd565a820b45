; model: CGB
; env_div at double speed (the frame sequencer on DIV bit 5): PCM12 read at 48 M-cycle
; offsets around the 8th DIV-APU event. Shows the M-cycle at which the volume drops.
INCLUDE "hardware.inc"
    TITLE "ENVELOPE DIV DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 1

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
    ld bc, 4665
    call ApuDelay
    ret
ProbeRead:
    ldh a, [rPCM12]
    ret
Title:
    db "ENVELOPE DIV DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
