; Timer and interrupt checks, reported with the Mooneye protocol (LD B,B with
; B,C,D,E,H,L = 3,5,8,13,21,34 on pass, all $42 on fail; hFailedCheck names the failed check).
;
; Behaviour checked, per Pan Docs ("Timer and Divider Registers", "Interrupts", "HALT"):
;   1-2   DIV resets to 0 on any write, then counts every 64 M-cycles
;   3-4   TIMA counts every 4 / 16 M-cycles with TAC = %101 / %110, not at all when stopped
;   5     overflow reloads TMA and sets IF bit 2 even with IME = 0
;   6     IME = 1: the timer interrupt dispatches to $0050 and clears its IF bit
;   7     VBlank ($0040) is served before timer when both are pending
;   8     EI takes effect after the next instruction (`ei` + `di` lets nothing in)
;   9     HALT with IME = 0 wakes on a pending interrupt without dispatching it
;   10    HALT with IME = 1 wakes and dispatches
;   11    IF reads its unused bits 5-7 as 1
; Timing checks allow a few M-cycles either way: exact edge timing is the Mooneye suite's job.

INCLUDE "hardware.inc"

    TITLE "BS TIMER IRQ"

SECTION "vblank vector", ROM0[$40]
    push af
    ld a, IEF_VBLANK
    jp LogInterrupt

SECTION "timer vector", ROM0[$50]
    push af
    ld a, IEF_TIMER
    jp LogInterrupt

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff ; no VBlank interrupts from the PPU while we test
    xor a
    ldh [rIE], a
    ldh [rIF], a
    ldh [rTAC], a

DivReset: ; 1
    ld a, $AB
    ldh [rDIV], a
    ldh a, [rDIV]
    and a
    ld a, 1
    jp nz, MooneyeFail

DivCounts: ; 2: about 404 M-cycles after the reset, DIV = 404 / 64 = 6
    ldh [rDIV], a
    ld b, 100
.wait:
    dec b
    jr nz, .wait
    ldh a, [rDIV]
    cp 6
    ld a, 2
    jp nz, MooneyeFail

TimaFast: ; 3: TAC %101 counts every 4 M-cycles: about 101 counts in 404
    xor a
    ldh [rTMA], a
    ldh [rTIMA], a
    ldh [rDIV], a
    ld a, TACF_START | TACF_262KHZ
    ldh [rTAC], a
    ld b, 100
.wait:
    dec b
    jr nz, .wait
    ldh a, [rTIMA]
    sub 99
    cp 5 ; 99..103
    ld a, 3
    jp nc, MooneyeFail

TimaMedium: ; 4: TAC %110 counts every 16 M-cycles: about 25 counts in 404
    xor a
    ldh [rTAC], a
    ldh [rTIMA], a
    ldh [rDIV], a
    ld a, TACF_START | TACF_65KHZ
    ldh [rTAC], a
    ld b, 100
.wait:
    dec b
    jr nz, .wait
    ldh a, [rTIMA]
    sub 24
    cp 3 ; 24..26
    ld a, 4
    jp nc, MooneyeFail

TimaStopped: ; 4 again: with TAC bit 2 clear nothing counts
    ld a, TACF_262KHZ
    ldh [rTAC], a
    ld a, $10
    ldh [rTIMA], a
    ld b, 100
.wait:
    dec b
    jr nz, .wait
    ldh a, [rTIMA]
    cp $10
    ld a, 4
    jp nz, MooneyeFail

Overflow: ; 5: $FE -> $FF -> reload $C0 and IF bit 2, then about 8 more counts
    xor a
    ldh [rIF], a
    ld a, $C0
    ldh [rTMA], a
    ld a, $FE
    ldh [rTIMA], a
    ld a, TACF_START | TACF_262KHZ
    ldh [rTAC], a
    ld b, 10 ; about 42 M-cycles
.wait:
    dec b
    jr nz, .wait
    ldh a, [rTIMA]
    sub $C6
    cp 5 ; $C6..$CA
    ld a, 5
    jp nc, MooneyeFail
    ldh a, [rIF]
    and IEF_TIMER
    ld a, 5
    jp z, MooneyeFail

Dispatch: ; 6
    call ClearLog
    xor a
    ldh [rTMA], a
    ldh [rIF], a
    ld a, IEF_TIMER
    ldh [rIE], a
    ld a, $F0 ; 16 counts, 64 M-cycles to the overflow
    ldh [rTIMA], a
    ld bc, 0
    ei
.wait: ; 10 M-cycles per round
    inc bc
    ld a, b
    cp 4 ; give up after 1024 rounds
    ld a, 6
    jp nc, MooneyeFail
    ld a, [wLogLength]
    and a
    jr z, .wait
    di
    ld a, c ; about 64 / 14 rounds
    sub 3
    cp 5
    ld a, 6
    jp nc, MooneyeFail
    ld a, [wLog]
    cp IEF_TIMER
    ld a, 6
    jp nz, MooneyeFail
    ldh a, [rIF]
    and IEF_TIMER
    ld a, 6
    jp nz, MooneyeFail

Priority: ; 7
    xor a
    ldh [rTAC], a
    call ClearLog
    ld a, IEF_VBLANK | IEF_TIMER
    ldh [rIE], a
    ldh [rIF], a
    ei
    nop
    nop
    di
    ld a, [wLogLength]
    cp 2
    ld a, 7
    jp nz, MooneyeFail
    ld a, [wLog]
    cp IEF_VBLANK
    ld a, 7
    jp nz, MooneyeFail
    ld a, [wLog + 1]
    cp IEF_TIMER
    ld a, 7
    jp nz, MooneyeFail

EiDelay: ; 8
    call ClearLog
    ld a, IEF_TIMER
    ldh [rIE], a
    ldh [rIF], a
    ei
    di
    ld a, [wLogLength]
    and a
    ld a, 8
    jp nz, MooneyeFail
    ei
    nop
    di
    ld a, [wLogLength]
    cp 1
    ld a, 8
    jp nz, MooneyeFail

HaltNoIme: ; 9
    call ClearLog
    xor a
    ldh [rIF], a
    ld a, IEF_TIMER
    ldh [rIE], a
    ld a, $F0
    ldh [rTIMA], a
    ld a, TACF_START | TACF_262KHZ
    ldh [rTAC], a
    halt
    nop
    ldh a, [rIF]
    and IEF_TIMER
    ld a, 9
    jp z, MooneyeFail
    ld a, [wLogLength]
    and a
    ld a, 9
    jp nz, MooneyeFail

HaltIme: ; 10
    call ClearLog
    xor a
    ldh [rIF], a
    ld a, $F0
    ldh [rTIMA], a
    ei
    halt
    nop
    di
    ld a, [wLogLength]
    cp 1
    ld a, 10
    jp nz, MooneyeFail
    ld a, [wLog]
    cp IEF_TIMER
    ld a, 10
    jp nz, MooneyeFail

IfUnusedBits: ; 11
    xor a
    ldh [rTAC], a
    ldh [rIF], a
    ldh a, [rIF]
    cp $E0
    ld a, 11
    jp nz, MooneyeFail

    jp MooneyePass

; Appends a (an IF bit) to wLog; entered from the vectors with af pushed.
LogInterrupt:
    push hl
    ld hl, wLogLength
    ld l, [hl] ; wLog is at $C000, so (HIGH(wLog), length) addresses the next entry
    ld h, HIGH(wLog)
    ld [hl], a
    ld hl, wLogLength
    inc [hl]
    pop hl
    pop af
    reti

ClearLog:
    xor a
    ld [wLogLength], a
    ret

SECTION "log", WRAM0[$C000]
wLog: ds 16
wLogLength: ds 1

    INCLUDE "include/common.inc"
