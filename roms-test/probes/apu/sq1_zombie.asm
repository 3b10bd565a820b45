; model: CGB
; "Zombie" NR12 writes: square 1 triggered with NR12 = old (volume 8 or 5, various envelope
; settings), then, once its first duty step has ended the start-up silence, NR12 = new while
; it plays; PCM12 shows the volume that results. 16 (old, new) pairs at single speed, from
; no envelope to envelopes in either direction, with and without a direction change.
INCLUDE "hardware.inc"
    TITLE "SQ1 ZOMBIE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 16
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    ld a, [wOffset]
    add a
    ld e, a
    ld d, 0
    ld hl, Pairs
    add hl, de
    ld a, $C0
    ldh [rNR11], a
    ld a, [hl+]
    ldh [rNR12], a
    xor a
    ldh [rNR13], a
    ld a, $87
    ldh [rNR14], a
    ; past the first duty step (256 M-cycles at frequency $700)
    ld b, 70
.wait:
    dec b
    jr nz, .wait
    ld a, [hl]
    ldh [rNR12], a
    ret
ProbeRead:
    ldh a, [rPCM12]
    ret
Pairs:
    db $80, $81, $80, $88, $81, $80, $81, $82
    db $88, $80, $88, $88, $88, $89, $89, $81
    db $80, $80, $83, $8B, $8B, $83, $50, $58
    db $58, $50, $58, $5F, $5F, $57, $30, $08
Title:
    db "SQ1 ZOMBIE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
