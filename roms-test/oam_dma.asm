; OAM DMAs started at a phase that moves across the frame from one round to the next
; (VBlank, HBlank, the OAM scan, mode 3, line 153, the LCD off two rounds in 16), from work
; RAM, VRAM and ROM (banks 0 and 1), with objects on, each from one of four routines in
; HRAM: the usual wait; reads of work RAM and OAM halfway (blocked, they see the byte the
; DMA copies); a restart while running; a HALT (IME off, woken by VBlank) over the
; transfer. The bytes copied change every round; hRounds ($FFF0) counts the rounds.
; No pass criterion: `crates/core/tests/determinism.rs` and the fast-path oracle compare
; runs with deferral on and off.

INCLUDE "hardware.inc"

    TITLE "BS OAM DMA"

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $DFF0
    ; The routines to $FF80..=$FFBF.
    ld hl, HramRoutines
    ld c, $80
.copy:
    ld a, [hl+]
    ldh [c], a
    inc c
    ld a, c
    cp $C0
    jr nz, .copy
    ld a, LCDCF_ON | LCDCF_BG8000 | LCDCF_OBJON | LCDCF_BGON
    ldh [rLCDC], a
    ld a, IEF_VBLANK ; never dispatched: wakes the HALT
    ldh [rIE], a

Round:
    ; $C000..=$C09F from the round counter.
    ldh a, [hRounds]
    inc a
    ldh [hRounds], a
    ld hl, $C000
    ld b, $A0
.fill:
    ld [hl+], a
    add a, 7
    dec b
    jr nz, .fill
.vblank:
    ldh a, [rLY]
    cp 144
    jr nz, .vblank
    ; BC = (counter & 7) << 8 | counter | 1; DEC BC until 0 (7 M-cycles each).
    ldh a, [hRounds]
    or 1
    ld c, a
    and 7
    ld b, a
.delay:
    dec bc
    ld a, b
    or c
    jr nz, .delay
    ; counter & 13 = 4 (routines 0 and 2, never the HALT): LCD off.
    ldh a, [hRounds]
    and 13
    cp 4
    jr nz, .lcd_stays
    ld a, LCDCF_BG8000 | LCDCF_OBJON | LCDCF_BGON
    ldh [rLCDC], a
.lcd_stays:
    ; D = the source's high byte, from Sources by (counter >> 2) & 3.
    ldh a, [hRounds]
    srl a
    srl a
    and 3
    ld e, a
    ld d, HIGH(Sources)
    ld a, [de]
    ld d, a
    ; HL = the routine, from Routines by counter & 3; A = D.
    ldh a, [hRounds]
    and 3
    add a, LOW(Routines)
    ld l, a
    ld h, HIGH(Routines)
    ld l, [hl]
    ld h, $FF
    ld a, d
    ld bc, LcdOn
    push bc
    jp hl

LcdOn:
    ld a, LCDCF_ON | LCDCF_BG8000 | LCDCF_OBJON | LCDCF_BGON
    ldh [rLCDC], a
    jp Round

SECTION "tables", ROM0[$200]
Sources:
    db $C0, $80, $40, $00
    ds 12, 0
Routines:
    db LOW(DmaWait), LOW(DmaReadHalfway), LOW(DmaRestart), LOW(DmaHalt)
    ASSERT HIGH(Sources) == HIGH(Routines)

; Copied to $FF80 and run there; `jr` is relative, so each works at either address.
SECTION "hram routines", ROM0[$300]
HramRoutines:
DEF DmaWait EQU $FF80
    ldh [rDMA], a
    ld a, 42
.wait:
    dec a
    jr nz, .wait
    ret
DEF DmaReadHalfway EQU $FF88
    ASSERT @ - HramRoutines == DmaReadHalfway - $FF80
    ldh [rDMA], a
    ld a, 12
.wait12:
    dec a
    jr nz, .wait12
    ld a, [$C020]
    ldh [hWramSeen], a
    ld a, [$FE05]
    ldh [hOamSeen], a
    ld a, 30
.wait30:
    dec a
    jr nz, .wait30
    ret
    nop
DEF DmaRestart EQU $FFA0
    ASSERT @ - HramRoutines == DmaRestart - $FF80
    ldh [rDMA], a
    ld a, 16
.wait16:
    dec a
    jr nz, .wait16
    ld a, $C1
    ldh [rDMA], a
    ld a, 42
.wait42:
    dec a
    jr nz, .wait42
    ret
    ds 7, 0
DEF DmaHalt EQU $FFB8
    ASSERT @ - HramRoutines == DmaHalt - $FF80
    ldh [rDMA], a
    xor a
    ldh [rIF], a
    halt
    nop
    ret
    ASSERT @ - HramRoutines == $40

SECTION "hram variables", HRAM[$FFF0]
hRounds: ds 1
hWramSeen: ds 1
hOamSeen: ds 1
