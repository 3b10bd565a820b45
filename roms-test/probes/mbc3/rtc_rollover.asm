; model: DMG
; The MBC3 clock counting one second on from 8 register settings: each case sets S, M, H,
; DL, DH (clock running), waits 68/64 s and latches; five results per case, the latched
; S, M, H, DL, DH. Needs SameBoy's clock in emulated time (tools/sameboy-run.c runs it so).
;   0 59:59:23 day $0FF     carries into day bit 8
;   1 59:59:23 day $1FF     day 511 -> 0 sets the carry bit
;   2 63 s                  an invalid value wraps to 0 without carrying
;   3 59 s 63 min           the carry into an invalid minute wraps it, no carry on
;   4 59:59:31              the same for hours
;   5 59:59:23 day $1FF, carry already set
;   6 58 s                  no carry
;   7 59:59:23 day $000 with the carry set: the carry stays

INCLUDE "rtc_common.inc"

    TITLE "RTC ROLLOVER"

DEF CASES EQU 8

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call RtcReset
    call ResetStores
    ld hl, Settings
    ld b, CASES
.case:
    push bc
    call RtcSetAll
    push hl
    ld b, 68
    call RtcWait64ths
    call RtcLatchStore
    pop hl
    pop bc
    dec b
    jr nz, .case
    ld de, Title
    ld c, 5 * CASES
    jp ProbeShow

Settings:
    db 59, 59, 23, $FF, $00
    db 59, 59, 23, $FF, $01
    db 63, 0, 0, 0, 0
    db 59, 63, 0, 0, 0
    db 59, 59, 31, 0, 0
    db 59, 59, 23, $FF, $81
    db 58, 0, 0, 0, 0
    db 59, 59, 23, 0, $80

Title:
    db "RTC ROLLOVER", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
