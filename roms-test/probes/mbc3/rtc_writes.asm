; model: DMG
; MBC3 clock register writes with the clock halted, each read back through a latch (or
; without one: the latched copy stays what the last latch took). 16 cases, each from a reset
; (every register 0, day high $40) and one result:
;   day high written $C1, $FF, $C0 (carry, halt, day bit 8 writable; other bits 0); seconds,
;   minutes, hours, day low written $FF (widths 6, 6, 5, 8 bits) and seconds $3C, hours $18
;   (out-of-range values kept); seconds written $12 after the latch, read unlatched (0, the
;   latched copy) and after a second latch ($12); minutes written $21 then seconds read
;   latched (0); a latch then day high written $C0 (halt kept) and read unlatched ($40) and
;   latched ($C0); two writes to seconds ($05 then $07) before a latch ($07).

INCLUDE "rtc_common.inc"

    TITLE "RTC WRITES"

DEF RTC_H EQU $0A
DEF RTC_DL EQU $0B

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    ld b, 0
    ; Day high.
    ld a, $C1
    call WriteLatchReadDh
    ld a, $FF
    call WriteLatchReadDh
    ld a, $C0
    call WriteLatchReadDh
    ; Widths.
    ld c, RTC_S
    ld a, $FF
    call WriteLatchRead
    ld c, RTC_M
    ld a, $FF
    call WriteLatchRead
    ld c, RTC_H
    ld a, $FF
    call WriteLatchRead
    ld c, RTC_DL
    ld a, $FF
    call WriteLatchRead
    ld c, RTC_S
    ld a, $3C
    call WriteLatchRead
    ld c, RTC_H
    ld a, $18
    call WriteLatchRead
    ; Written after the latch: unlatched, then latched.
    call RtcReset
    ld c, RTC_S
    ld a, $12
    call RtcWrite
    call RtcRead
    call Store
    call RtcLatch
    call RtcRead
    call Store
    ; Another register written: the latched seconds stay.
    call RtcReset
    ld c, RTC_M
    ld a, $21
    call RtcWrite
    call RtcLatch
    ld c, RTC_S
    call RtcRead
    call Store
    ld c, RTC_M
    call RtcRead
    call Store
    ; Day high after a latch.
    call RtcReset
    ld c, RTC_DH
    ld a, $C0
    call RtcWrite
    call RtcRead
    call Store
    call RtcLatch
    call RtcRead
    call Store
    ; Two writes before a latch.
    call RtcReset
    ld c, RTC_S
    ld a, $05
    call RtcWrite
    ld a, $07
    call RtcWrite
    call RtcLatch
    call RtcRead
    call Store
    ld de, Title
    ld c, 16
    jp ProbeShow

; Resets the clock, writes a to day high, latches and stores day high. Clobbers a, c, de, hl.
WriteLatchReadDh:
    ld c, RTC_DH
    ; fall through
; Resets the clock, writes a to register c (day high kept halted unless c is day high),
; latches and stores register c. Clobbers a, de, hl.
WriteLatchRead:
    push af
    call RtcReset
    pop af
    call RtcWrite
    call RtcLatch
    call RtcRead
    ; fall through
; Stores a at wResults + b, b + 1. Clobbers de, hl.
Store:
    call StoreResult
    inc b
    ret

Title:
    db "RTC WRITES", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
