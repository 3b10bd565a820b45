; model: DMG
; Latched against counting registers while the clock runs. Case k (0-7): seconds 0 written
; (the clock running), a latch right away, then (k + 1) * 12/64 s later the latched seconds
; read, a latch, and the seconds read again. Two results per case: 0 (the latched copy does
; not move), then the seconds counted so far (1 from k = 5 on). Needs SameBoy's clock in
; emulated time (tools/sameboy-run.c runs it so).

INCLUDE "rtc_common.inc"

    TITLE "RTC LATCH RUN"

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call RtcReset
    call ResetStores
    ld b, 12
.case:
    push bc
    ld hl, Zeros
    call RtcSetAll
    call RtcLatch
    pop bc
    push bc
    call RtcWait64ths
    ld c, RTC_S
    call RtcRead
    call StoreNext
    call RtcLatch
    ld c, RTC_S
    call RtcRead
    call StoreNext
    pop bc
    ld a, b
    add 12
    ld b, a
    cp 12 * 9
    jr nz, .case
    ld de, Title
    ld c, 16
    jp ProbeShow

Zeros:
    db 0, 0, 0, 0, 0

Title:
    db "RTC LATCH RUNNING", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
