; model: DMG
; RAM banks of a plain MBC3 with a clock and 32 KiB RAM: RAMB $00-$07 each written $B0 +
; bank at A000 (in that order), then each read back: 8 results, banks 0-7. Banks 4-7 do not
; exist on it (SameBoy: reads $FF, writes lost; an MBC30 would have them).

INCLUDE "rtc_common.inc"

    RAM_SIZE $03
    TITLE "RTC RAM BANKS"

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call RtcReset
    call ResetStores
    ld b, 0
.write:
    ld a, b
    ld [MBC_RAMB], a
    add $B0
    ld [$A000], a
    inc b
    ld a, b
    cp 8
    jr nz, .write
    ld b, 0
.read:
    ld a, b
    ld [MBC_RAMB], a
    ld a, [$A000]
    call StoreNext
    inc b
    ld a, b
    cp 8
    jr nz, .read
    ld de, Title
    ld c, 8
    jp ProbeShow

Title:
    db "RTC RAM BANKS", 0

INCLUDE "../../include/common.inc"
INCLUDE "../../include/probe.inc"
INCLUDE "../../include/cycle_sweep.inc"
