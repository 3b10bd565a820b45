; model: DMG
; RAMG values that enable the MBC3's RAM and clock: for each value below, RAMG is written with
; it, then $20 + k goes to the clock's seconds and $40 + k to RAM bank 0 (A000); RAMG $0A,
; a latch, and both are read back. Two results per value: the seconds and the RAM byte ($20 +
; k and $40 + k if the writes got through, the previous values if not).
;   $0A $1A $FA $8A (low nibble $A: enabled)   $0B $00 $A0 $4B (disabled)

INCLUDE "rtc_common.inc"

    TITLE "RTC RAMG"

DEF CASES EQU 8

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call RtcReset
    call ResetStores
    xor a
    ld [MBC_RAMB], a
    ld [$A000], a
    ld hl, Values
    ld b, 0
.case:
    ld a, [hl+]
    ld [MBC_RAMG], a
    ld a, b
    add $20
    ld c, RTC_S
    call RtcWrite
    xor a
    ld [MBC_RAMB], a
    ld a, b
    add $40
    ld [$A000], a
    ld a, $0A
    ld [MBC_RAMG], a
    push hl
    call RtcLatch
    ld c, RTC_S
    call RtcRead
    call StoreNext
    xor a
    ld [MBC_RAMB], a
    ld a, [$A000]
    call StoreNext
    pop hl
    inc b
    ld a, b
    cp CASES
    jr nz, .case
    ld de, Title
    ld c, 2 * CASES
    jp ProbeShow

Values:
    db $0A, $1A, $FA, $8A, $0B, $00, $A0, $4B

Title:
    db "RTC RAMG", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
