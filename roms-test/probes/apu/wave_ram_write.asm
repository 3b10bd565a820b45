; model: CGB
; A wave RAM write (0 to FF3F) while the wave channel plays (frequency $7F8, ramp wave with no
; zero byte) at 48 M-cycle offsets after its trigger, single speed; then the channel stops and
; the probe shows which byte the write reached. On a CGB it goes to the byte the channel is
; reading.
INCLUDE "hardware.inc"
    TITLE "WAVE RAM WRITE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    ld a, $80
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $F8
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ret
ProbeRead:
    xor a
    ldh [$FF3F], a
    ldh [rNR30], a
    ; which wave RAM byte took the write ($FF: none)
    ld hl, _AUD3WAVERAM
    ld b, 0
.find:
    ld a, [hl+]
    and a
    jr z, .found
    inc b
    ld a, b
    cp 16
    jr nz, .find
    ld b, $FF
.found:
    ld a, b
    ret
Title:
    db "WAVE RAM WRITE", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
