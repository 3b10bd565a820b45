; model: DMG
; MBC3 clock register numbers and widths: for each RAMB value below, $FF is written, the
; clock latched and the register read; then the same with $40 (day high keeps the clock
; halted either way). Two results per RAMB value: the read after $FF, after $40.
;   $08-$0C the five registers (widths 6, 6, 5, 8 and bits 0, 6, 7);
;   $0D-$0F no register (open bus); $18, $1C, $48, $F8 (bits 4-7 of RAMB ignored).

INCLUDE "rtc_common.inc"

    TITLE "RTC REGISTERS"

DEF CASES EQU 12

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call RtcReset
    ld hl, Registers
    ld b, 0
.case:
    ld c, [hl]
    inc hl
    push hl
    ld a, $FF
    call RtcWrite
    call RtcLatch
    ld hl, $A000
    ld a, c
    ld [MBC_RAMB], a
    ld a, [hl]
    call StoreResult
    inc b
    ld a, $40
    call RtcWrite
    call RtcLatch
    ld hl, $A000
    ld a, c
    ld [MBC_RAMB], a
    ld a, [hl]
    call StoreResult
    inc b
    ; day high back to halted, nothing else set
    ld a, $40
    ld c, RTC_DH
    call RtcWrite
    pop hl
    ld a, b
    cp 2 * CASES
    jr nz, .case
    ld de, Title
    ld c, 2 * CASES
    jp ProbeShow

Registers:
    db $08, $09, $0A, $0B, $0C, $0D, $0E, $0F, $18, $1C, $48, $F8

Title:
    db "RTC REGISTERS", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
