; model: DMG
; The MBC3 clock's sub-second counter around halt and register writes. Each case k (0-7)
; writes seconds 0 (restarting the sub-second counter) and then:
;   halt:    runs (k + 1) * 8/64 s, halts for 16/64 s, runs on for 36/64 s (halt freezes
;            the sub-second counter, so the second is up from k = 3 on);
;   seconds: runs (k + 1) * 8/64 s, writes seconds 5, runs 36/64 s (the write restarts the
;            counter: always 5);
;   minutes: runs (k + 1) * 8/64 s, writes minutes 0, runs 36/64 s (no restart: 1 from k = 3).
; Results: the latched seconds, 8 per part. Needs SameBoy's clock in emulated time
; (tools/sameboy-run.c runs it so).

INCLUDE "rtc_common.inc"

    TITLE "RTC HALT"

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call RtcReset
    call ResetStores
    ; part 1: halt
    ld b, 1
.halt:
    push bc
    call StartSecond
    pop bc
    push bc
    call WaitEighths
    ld a, $40
    ld c, RTC_DH
    call RtcWrite
    ld b, 16
    call RtcWait64ths
    xor a
    ld c, RTC_DH
    call RtcWrite
    call FinishCase
    pop bc
    inc b
    ld a, b
    cp 9
    jr nz, .halt
    ; part 2: seconds written
    ld b, 1
.seconds:
    push bc
    call StartSecond
    pop bc
    push bc
    call WaitEighths
    ld a, 5
    ld c, RTC_S
    call RtcWrite
    call FinishCase
    pop bc
    inc b
    ld a, b
    cp 9
    jr nz, .seconds
    ; part 3: minutes written
    ld b, 1
.minutes:
    push bc
    call StartSecond
    pop bc
    push bc
    call WaitEighths
    xor a
    ld c, RTC_M
    call RtcWrite
    call FinishCase
    pop bc
    inc b
    ld a, b
    cp 9
    jr nz, .minutes
    ld de, Title
    ld c, 24
    jp ProbeShow

; All registers 0, the clock running, the sub-second counter restarted.
StartSecond:
    ld hl, Zeros
    jp RtcSetAll

; Waits b eighths of a second.
WaitEighths:
    ld a, b
    add a
    add a
    add a
    ld b, a
    jp RtcWait64ths

; Runs 36/64 s, latches and stores the seconds.
FinishCase:
    ld b, 36
    call RtcWait64ths
    call RtcLatch
    ld c, RTC_S
    call RtcRead
    jp StoreNext

Zeros:
    db 0, 0, 0, 0, 0

Title:
    db "RTC HALT", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
