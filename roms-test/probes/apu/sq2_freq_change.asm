; model: CGB
; Square 2 at frequency $7F0 (16 M-cycles per duty step), duty 50 %, gets NR23 = $FC (4
; M-cycles per step) at 48 M-cycle offsets after its trigger, single speed; PCM12 read 20
; M-cycles after the write. Shows that the new frequency takes effect at the next duty step
; (and at once if the write lands in the cycle of a step's reload).
INCLUDE "hardware.inc"
    TITLE "SQ2 FREQ CHANGE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, $80
    ldh [rNR21], a
    ld a, $F0
    ldh [rNR22], a
    ld a, $F0
    ldh [rNR23], a
    ld a, $87
    ldh [rNR24], a
    ret
ProbeRead:
    ld a, $FC
    ldh [rNR23], a
    ld b, 5
.wait:
    dec b
    jr nz, .wait
    ldh a, [rPCM12]
    ret
Title:
    db "SQ2 FREQ CHANGE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
