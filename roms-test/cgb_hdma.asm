; CGB HBlank VRAM DMA around HALT, and palette data access in mode 3, reported with the
; Mooneye protocol (LD B,B with B,C,D,E,H,L = 3,5,8,13,21,34 on pass, all $42 on fail;
; hFailedCheck names the failed check). A CGB-only cartridge (header $0143 = $C0).
;
; Behaviour checked (Pan Docs "LCD VRAM DMA Transfers", "LCD Color Palettes"; HDMA during
; HALT as SameBoy and Gambatte model it, no hardware test ROM here covers it):
;   1  HDMA5 reads $01 (active, 2 blocks left) right after a 2-block HBlank transfer is
;      started in VBlank
;   2  no block is copied while the CPU is halted through a whole frame of HBlanks
;   3  once awake, the HBlanks of lines 0 and 1 copy both blocks (HDMA5 reads $FF)
;   4  the 32 bytes arrived in VRAM at $8800
;   5  a HALT begun in VBlank and ended by the HBlank STAT interrupt of line 0: that
;      HBlank's block runs at wake-up (HDMA5 reads $FF right after)
;   6  BCPD reads $FF in mode 3
;   7  a BCPD write in mode 3 is lost: the palette byte keeps its value
;   8  OCPD reads $FF in mode 3 and its byte outside mode 3

INCLUDE "hardware.inc"

    TITLE "BS CGB HDMA"
    CGB_FLAG $C0

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    xor a
    ldh [rIE], a
    ldh [rIF], a
    ; the DMA source: bytes 0, 1, ..., 31 at wSource
    ld hl, wSource
    xor a
.fill:
    ld [hl+], a
    inc a
    cp 32
    jr nz, .fill
    ; the LCD is on after boot

StartInVBlank: ; 1
    call WaitLy144
    ld a, HIGH(wSource)
    ldh [rHDMA1], a
    xor a
    ldh [rHDMA2], a
    ld a, $08
    ldh [rHDMA3], a
    xor a
    ldh [rHDMA4], a
    ld a, $81
    ldh [rHDMA5], a
    ldh a, [rHDMA5]
    cp $01
    ld a, 1
    jp nz, MooneyeFail

NoBlockWhileHalted: ; 2: IME 0, so HALT ends at the next VBlank without a dispatch
    ld a, IEF_VBLANK
    ldh [rIE], a
    xor a
    ldh [rIF], a
    halt
    nop
    ldh a, [rHDMA5]
    cp $01
    ld a, 2
    jp nz, MooneyeFail

BlocksOnceAwake: ; 3
.line2:
    ldh a, [rLY]
    cp 2
    jr nz, .line2
    ldh a, [rHDMA5]
    cp $FF
    ld a, 3
    jp nz, MooneyeFail

BytesArrived: ; 4
    call WaitLy144
    ld hl, $8800
    ld b, 0
.compare:
    ld a, [hl+]
    cp b
    ld a, 4
    jp nz, MooneyeFail
    inc b
    ld a, b
    cp 32
    jr nz, .compare

BlockAtWakeUp: ; 5: still in VBlank; one block to $8900
    ld a, $09
    ldh [rHDMA3], a
    ld a, $80
    ldh [rHDMA5], a
    ld a, STATF_MODE00
    ldh [rSTAT], a
    ld a, IEF_STAT
    ldh [rIE], a
    xor a
    ldh [rIF], a
    halt
    nop
    ldh a, [rHDMA5]
    cp $FF
    ld a, 5
    jp nz, MooneyeFail
    xor a
    ldh [rSTAT], a
    ldh [rIE], a

PaletteBlockedInMode3: ; 6
    call WaitLy144
    xor a
    ldh [rBCPS], a ; index 0, no auto-increment
    ldh [rOCPS], a
    ld a, $5A
    ldh [rBCPD], a
    ld a, $A5
    ldh [rOCPD], a
    call WaitMode3
    ldh a, [rBCPD]
    cp $FF
    ld a, 6
    jp nz, MooneyeFail

PaletteWriteLostInMode3: ; 7
    call WaitMode3
    ld a, $11
    ldh [rBCPD], a
    call WaitLy144
    ldh a, [rBCPD]
    cp $5A
    ld a, 7
    jp nz, MooneyeFail

ObjectPaletteBlockedInMode3: ; 8
    call WaitMode3
    ldh a, [rOCPD]
    cp $FF
    ld a, 8
    jp nz, MooneyeFail
    call WaitLy144
    ldh a, [rOCPD]
    cp $A5
    ld a, 8
    jp nz, MooneyeFail

    jp MooneyePass

; Waits for the start of line 144 (VBlank), polling LY. Clobbers a.
WaitLy144:
    ldh a, [rLY]
    cp 144
    jr z, WaitLy144 ; already in line 144: wait for the next frame's
.wait:
    ldh a, [rLY]
    cp 144
    jr nz, .wait
    ret

; Returns early in mode 3 (at least 30 M-cycles of it left): waits for mode 2, then for
; mode 3. Clobbers a.
WaitMode3:
    ldh a, [rSTAT]
    and 3
    cp 2
    jr nz, WaitMode3
.mode3:
    ldh a, [rSTAT]
    and 3
    cp 3
    jr nz, .mode3
    ret

SECTION "source", WRAM0[$C000]
wSource: ds 32

    INCLUDE "include/common.inc"
