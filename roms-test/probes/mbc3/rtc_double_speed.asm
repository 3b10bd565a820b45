; model: CGB
; The MBC3 clock at double speed: its crystal does not follow the CPU. At double speed, case
; k (0-7) writes seconds 0 and latches the seconds (96 + 8k)/128 s later: the second is up
; from k = 4 on (1 s). Needs SameBoy's clock in emulated time (tools/sameboy-run.c runs it so).

INCLUDE "rtc_common.inc"

    TITLE "RTC 2X SPEED"
    CGB_FLAG $C0

DEF CASES EQU 8

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call EnterDoubleSpeed
    call RtcReset
    call ResetStores
    ld b, 96
.case:
    push bc
    ld hl, Zeros
    call RtcSetAll
    pop bc
    push bc
    ; RtcWait64ths counts 128ths of a second at double speed
    call RtcWait64ths
    call RtcLatch
    ld c, RTC_S
    call RtcRead
    call StoreNext
    pop bc
    ld a, b
    add 8
    ld b, a
    cp 96 + 8 * CASES
    jr nz, .case
    ld de, Title
    ld c, CASES
    jp ProbeShow

Zeros:
    db 0, 0, 0, 0, 0

Title:
    db "RTC DOUBLE SPEED", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
