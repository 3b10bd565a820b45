; model: CGB
; The wave channel triggered with its DAC off, the DAC turned on (frequency $780, 32 M-cycles
; per read, ramp wave), so that it counts in the background; a HALT entered at 48 M-cycle
; offsets (IME off), woken by a timer overflow at one fixed time, then a retrigger and PCM34 at
; once, single speed. The reads while the CPU is halted take the address it read as it halted:
; the byte after the HALT (SameBoy's `halt`; UNVERIFIED).
INCLUDE "hardware.inc"
    TITLE "WAVE BG HALT"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0

SECTION "probe", ROM0
ProbeSetup:
    call ApuLoadRampWave
    xor a
    ldh [rNR30], a
    ld a, $20
    ldh [rNR32], a
    ld a, $80
    ldh [rNR33], a
    ld a, $87
    ldh [rNR34], a
    ld a, $80
    ldh [rNR30], a
    ; TIMA overflows 160 M-cycles after the TAC write (40 steps of 4 M-cycles).
    xor a
    ldh [rIF], a
    ld a, IEF_TIMER
    ldh [rIE], a
    ld a, $D8
    ldh [rTIMA], a
    ld a, TACF_START | TACF_262KHZ
    ldh [rTAC], a
    ret
ProbeRead:
    halt
    nop
    ld a, $87
    ldh [rNR34], a
    ldh a, [rPCM34]
    ld b, a
    xor a
    ldh [rTAC], a
    ldh [rIE], a
    ldh [rIF], a
    ld a, b
    ret
Title:
    db "WAVE BACKGROUND HALT", 0

INCLUDE "apu.inc"
INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
