; model: CGB
; The wave channel triggered with its DAC on, length 1 and length enabled (frequency $7F8,
; ramp wave), so that the first DIV-APU event turns it off; retriggered at 48 M-cycle offsets
; after that, single speed, PCM34 read at once. A channel the length counter stopped counts on
; in the background and its reads take wave RAM at the CPU's bus address, as one triggered
; with its DAC off: only a DAC-off write ends that.
INCLUDE "hardware.inc"
    TITLE "WAVE LEN BG"
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
    ld a, $FF
    ldh [rNR31], a
    ld a, $C7
    ldh [rNR34], a
    ; past the first DIV-APU event (2048 M-cycles after the DIV write)
    ld bc, 320
    call ApuDelay
    ret
ProbeRead:
    ld a, $87
    ldh [rNR34], a
    ldh a, [rPCM34]
    ret
Title:
    db "WAVE LENGTH BG", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
