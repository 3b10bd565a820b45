; model: DMG
; The MBC3 latch: which write sequences to 6000-7FFF copy the counting registers into the
; latched ones. Case k (0-11) latches the documented way, writes $10 + k to the counting
; seconds, performs sequence k below, and reads the seconds: $10 + k if it latched, the
; previous value otherwise. Then it latches the documented way again (two results per case:
; seconds after the sequence, after the documented latch).
;   0 00 01   1 01   2 00   3 02 01   4 00 02   5 00 00 01   6 01 01   7 00 03
;   8 80 81   9 00 11   10 00, RAM write, 01   11 00 01 00
; Pan Docs documents only $00 then $01; SameBoy latches on every write.

INCLUDE "rtc_common.inc"

    TITLE "RTC LATCH"

DEF CASES EQU 12

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call RtcReset
    ld hl, Sequences
    ld b, 0
.case:
    push bc
    push hl
    call RtcLatch
    ld a, b
    add $10
    ld c, RTC_S
    call RtcWrite
    pop hl
    ; the sequence: a count, then the bytes; $FE stands for a write to the clock's DL
.sequence:
    ld a, [hl+]
    ld e, a
.byte:
    ld a, [hl+]
    cp $FE
    jr z, .ram
    ld [LATCH], a
    jr .next
.ram:
    ld a, $0B
    ld [MBC_RAMB], a
    xor a
    ld [$A000], a
.next:
    dec e
    jr nz, .byte
    push hl
    ld c, RTC_S
    call RtcRead
    pop hl
    pop bc
    push hl
    push af
    ld a, b
    add a
    ld b, a
    pop af
    call StoreResult
    push bc
    call RtcLatch
    ld c, RTC_S
    call RtcRead
    pop bc
    inc b
    call StoreResult
    pop hl
    srl b
    inc b
    ld a, b
    cp CASES
    jr nz, .case
    ld de, Title
    ld c, 2 * CASES
    jp ProbeShow

Sequences:
    db 2, $00, $01
    db 1, $01
    db 1, $00
    db 2, $02, $01
    db 2, $00, $02
    db 3, $00, $00, $01
    db 2, $01, $01
    db 2, $00, $03
    db 2, $80, $81
    db 2, $00, $11
    db 3, $00, $FE, $01
    db 3, $00, $01, $00

Title:
    db "RTC LATCH", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
