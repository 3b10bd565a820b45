; model: CGB
; wave_ram_write at double speed over 96 offsets: a write to FF3F while the wave channel plays
; (frequency $7F8, ramp wave) lands in the byte the channel is reading; the channel then stops and
; the probe shows which byte took the write.
INCLUDE "hardware.inc"
    TITLE "WAVE WRITE DS"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 96
DEF DOUBLE_SPEED EQU 1

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
    db "WAVE WRITE DS", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
