; Backspin's built-in demo: a meadow scrolling by, with a small creature to play with.
;
;   d-pad left/right  walk              A  jump (with a rising "boing" on sound channel 1)
;   B                 plant a flower in the grass under you (a blip on channel 2)
;   START             stop / restart the scrolling
;
; The sky and the ground scroll at different speeds (a STAT interrupt at line 63 switches
; SCX), the flowers drift away with the ground and come round again, and the window at the
; bottom counts frames and flowers. Everything the player does (position, jumps, flowers,
; counters) is visible, so rewinding visibly undoes it.
;
; Tile numbers: $00-$05 the player; $20-$5F the font (ASCII); lowercase letters the
; scenery, so the map below is drawn with the letters that are its tile numbers.

INCLUDE "hardware.inc"

    TITLE "BACKSPIN DEMO"

DEF GRASS_ROW       EQU 12            ; background row the flowers grow in
DEF SPLIT_LINE      EQU 63            ; LYC: sky SCX above, ground SCX from the next line
DEF GROUND_OAM_Y    EQU 80 + 16       ; player top when standing: feet on the grass
DEF PLAYER_MIN_X    EQU 8             ; OAM X of the left half: screen x 0
DEF PLAYER_MAX_X    EQU 8 + 160 - 16
DEF HUD_FRAME       EQU _SCRN1 + 7    ; six BCD digits
DEF HUD_FLOWERS     EQU _SCRN1 + 17   ; two BCD digits
DEF NO_PLANT        EQU $FF

SECTION "vblank vector", ROM0[$40]
    jp VBlank
SECTION "stat vector", ROM0[$48]
    jp Stat

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "main", ROM0[$150]
Start:
    di
    ld sp, $E000
    call LcdOff
    ; tiles
    ld hl, _TILES0
    ld de, PlayerTiles
    ld bc, PlayerTiles.end - PlayerTiles
    call MemCopy
    call LoadFont
    ld de, SceneryTiles
.scenery: ; entries: tile number, 16 bytes; 0 ends
    ld a, [de]
    and a
    jr z, .scenery_done
    inc de
    ld l, a ; hl = _TILES0 + 16 * a
    ld h, 0
    add hl, hl
    add hl, hl
    add hl, hl
    add hl, hl
    ld bc, _TILES0
    add hl, bc
    ld bc, 16
    call MemCopy
    jr .scenery
.scenery_done:
    ; background: 16 rows of the map, then the window's HUD
    ld hl, _SCRN0
    ld de, Map
    ld bc, Map.end - Map
    call MemCopy
    ld hl, _SCRN1
    ld de, Hud
    ld bc, Hud.end - Hud
    call MemCopy
    ; OAM: all hidden, then the DMA routine into HRAM
    ld hl, wShadowOam
    ld bc, 160
    ld e, 0
    call MemSet
    ld hl, hDma
    ld de, DmaRoutine
    ld bc, DmaRoutine.end - DmaRoutine
    call MemCopy
    call hDma
    ; game state
    ld hl, wFlowers
    ld bc, 32
    ld e, 0
    call MemSet
    xor a
    ld hl, hVariables
    ld c, hVariablesEnd - hVariables
.clear:
    ld [hl+], a
    dec c
    jr nz, .clear
    ld a, 72
    ldh [hPlayerX], a
    ld a, NO_PLANT
    ldh [hPlantColumn], a
    call BuildPlayerOam
    ; sound on, both channels to both sides
    ld a, $80
    ldh [rNR52], a
    ld a, $77
    ldh [rNR50], a
    ld a, $FF
    ldh [rNR51], a
    ; video
    ld a, %11100100
    ldh [rBGP], a
    ldh [rOBP0], a
    xor a
    ldh [rSCX], a
    ldh [rSCY], a
    ld a, 128
    ldh [rWY], a
    ld a, 7
    ldh [rWX], a
    ld a, SPLIT_LINE
    ldh [rLYC], a
    ld a, STATF_LYC
    ldh [rSTAT], a
    ld a, IEF_VBLANK | IEF_STAT
    ldh [rIE], a
    xor a
    ldh [rIF], a
    ld a, LCDCF_ON | LCDCF_WIN9C00 | LCDCF_WINON | LCDCF_BG8000 | LCDCF_OBJON | LCDCF_BGON
    ldh [rLCDC], a
    ei

MainLoop:
    halt
    nop
    ldh a, [hVBlank]
    and a
    jr z, MainLoop
    xor a
    ldh [hVBlank], a
    ; VBlank: video memory first, while it is free
    call hDma
    ldh a, [hPlantColumn]
    cp NO_PLANT
    jr z, .no_plant
    ld hl, _SCRN0 + 32 * GRASS_ROW
    add l
    ld l, a
    ld [hl], "w"
    ld a, NO_PLANT
    ldh [hPlantColumn], a
.no_plant:
    call DrawHud
    ; then the game
    call CountFrame
    call Scroll
    call ReadPad
    ld b, a
    ldh a, [hPad]
    cpl
    and b
    ldh [hPressed], a ; newly pressed this frame
    ld a, b
    ldh [hPad], a
    call Pause
    call Walk
    call Jump
    call Plant
    call BuildPlayerOam
    jr MainLoop

; Frame start: the sky's scroll for the top of the screen.
VBlank:
    push af
    ldh a, [hSkyScx]
    ldh [rSCX], a
    ld a, 1
    ldh [hVBlank], a
    pop af
    reti

; Line SPLIT_LINE: the ground's scroll from here down. The sky's last row is empty, so the
; write landing mid-line does not show.
Stat:
    push af
    ldh a, [hGroundScx]
    ldh [rSCX], a
    pop af
    reti

; The frame counter, six BCD digits.
CountFrame:
    ldh a, [hFrameBcd]
    add 1
    daa
    ldh [hFrameBcd], a
    ldh a, [hFrameBcd + 1]
    adc 0
    daa
    ldh [hFrameBcd + 1], a
    ldh a, [hFrameBcd + 2]
    adc 0
    daa
    ldh [hFrameBcd + 2], a
    ret

; Ground: one pixel every second frame; sky: every fourth. The map is 256 pixels wide,
; so both wrap seamlessly. Nothing moves while paused.
Scroll:
    ldh a, [hPaused]
    and a
    ret nz
    ldh a, [hTick]
    inc a
    ldh [hTick], a
    bit 0, a
    ret nz
    ld hl, hGroundScx
    inc [hl]
    bit 1, a
    ret nz
    ld hl, hSkyScx
    inc [hl]
    ret

; START toggles the scrolling.
Pause:
    ldh a, [hPressed]
    bit PADB_START, a
    ret z
    ldh a, [hPaused]
    xor 1
    ldh [hPaused], a
    ret

; Left/right walk one pixel a frame and turn the player; the step animation runs while
; walking.
Walk:
    ldh a, [hPad]
    ld b, a
    ld c, 0 ; moved?
    bit PADB_RIGHT, b
    jr z, .not_right
    xor a
    ldh [hFacing], a
    ldh a, [hPlayerX]
    cp PLAYER_MAX_X
    jr nc, .not_right
    inc a
    ldh [hPlayerX], a
    inc c
.not_right:
    bit PADB_LEFT, b
    jr z, .not_left
    ld a, 1
    ldh [hFacing], a
    ldh a, [hPlayerX]
    cp PLAYER_MIN_X + 1
    jr c, .not_left
    dec a
    ldh [hPlayerX], a
    inc c
.not_left:
    ld a, c
    and a
    jr z, .standing
    ldh a, [hWalk]
    inc a
    ldh [hWalk], a
    ret
.standing:
    xor a
    ldh [hWalk], a
    ret

; A starts a jump from the ground; a jump follows JumpHeights frame by frame.
Jump:
    ldh a, [hJump]
    and a
    jr nz, .in_air
    ldh a, [hPressed]
    bit PADB_A, a
    ret z
    ; boing: channel 1, sweeping up
    ld a, $16 ; sweep pace 1, up, step 6
    ldh [rNR10], a
    ld a, $80 ; duty 50%
    ldh [rNR11], a
    ld a, $F2 ; volume 15, fading
    ldh [rNR12], a
    xor a
    ldh [rNR13], a
    ld a, $86 ; trigger, period $600 (256 Hz)
    ldh [rNR14], a
    ld a, 1
    ldh [hJump], a
    ret
.in_air:
    inc a
    cp JumpHeights.end - JumpHeights
    jr c, .store
    xor a ; landed
.store:
    ldh [hJump], a
    ret

; B plants a flower in the grass column under the player's middle, once per column.
Plant:
    ldh a, [hPressed]
    bit PADB_B, a
    ret z
    ldh a, [hGroundScx] ; world x = screen x + scroll; OAM X of the left half is the
    ld b, a             ; screen x of the middle (+8 offset, +8 half width)
    ldh a, [hPlayerX]
    add b
    rrca
    rrca
    rrca
    and 31
    ld c, a
    ld hl, wFlowers
    add l
    ld l, a
    ld a, [hl]
    and a
    ret nz ; one flower per column
    ld [hl], 1
    ld a, c
    ldh [hPlantColumn], a
    ldh a, [hFlowerBcd]
    add 1
    daa
    ldh [hFlowerBcd], a
    ; blip: channel 2
    ld a, $80 ; duty 50%
    ldh [rNR21], a
    ld a, $A1 ; volume 10, fading fast
    ldh [rNR22], a
    ld a, $C0
    ldh [rNR23], a
    ld a, $87 ; trigger, period $7C0 (2 kHz)
    ldh [rNR24], a
    ret

; Four sprites for the player from position, facing, step and jump height.
BuildPlayerOam:
    ld hl, JumpHeights
    ldh a, [hJump]
    add l
    ld l, a
    adc h
    sub l
    ld h, a
    ld b, [hl]
    ld a, GROUND_OAM_Y
    sub b
    ld d, a ; top
    ldh a, [hPlayerX]
    ld e, a ; left
    ldh a, [hWalk]
    and %1000 ; step every 8 frames
    rrca
    rrca
    add 2
    ldh [hBottomTile], a ; 2 or 4
    ldh a, [hFacing]
    ld b, a ; 0 right, 1 left
    ld c, 0
    and a
    jr z, .facing_right
    ld c, OAMF_XFLIP
.facing_right:
    ld hl, wShadowOam
    ld a, d ; top left: tile 0, or 1 flipped
    ld [hl+], a
    ld a, e
    ld [hl+], a
    ld a, b
    ld [hl+], a
    ld a, c
    ld [hl+], a
    ld a, d ; top right: tile 1, or 0 flipped
    ld [hl+], a
    ld a, e
    add 8
    ld [hl+], a
    ld a, 1
    sub b
    ld [hl+], a
    ld a, c
    ld [hl+], a
    ld a, d
    add 8
    ld d, a
    ld [hl+], a ; bottom left
    ld a, e
    ld [hl+], a
    ldh a, [hBottomTile]
    add b
    ld [hl+], a
    ld a, c
    ld [hl+], a
    ld a, d ; bottom right
    ld [hl+], a
    ld a, e
    add 8
    ld [hl+], a
    ldh a, [hBottomTile]
    inc a
    sub b
    ld [hl+], a
    ld a, c
    ld [hl+], a
    ret

DrawHud:
    ld hl, HUD_FRAME
    ldh a, [hFrameBcd + 2]
    call PutBcd
    ldh a, [hFrameBcd + 1]
    call PutBcd
    ldh a, [hFrameBcd]
    call PutBcd
    ld hl, HUD_FLOWERS
    ldh a, [hFlowerBcd]
    ; fall through
; Writes the two BCD digits in a at hl.
PutBcd:
    ld b, a
    swap a
    and $0F
    add "0"
    ld [hl+], a
    ld a, b
    and $0F
    add "0"
    ld [hl+], a
    ret

; Reads the joypad: a = pressed buttons (1 = pressed), bits as PADB_*.
ReadPad:
    ld a, P1F_GET_DPAD
    ldh [rP1], a
    ldh a, [rP1]
    ldh a, [rP1]
    cpl
    and $0F
    ld b, a
    ld a, P1F_GET_BTN
    ldh [rP1], a
    ldh a, [rP1]
    ldh a, [rP1]
    ldh a, [rP1]
    cpl
    and $0F
    swap a
    or b
    ld b, a
    ld a, P1F_GET_NONE
    ldh [rP1], a
    ld a, b
    ret

; Turns the LCD off in VBlank.
LcdOff:
    ldh a, [rLCDC]
    bit 7, a
    ret z
.wait:
    ldh a, [rLY]
    cp 144
    jr c, .wait
    xor a
    ldh [rLCDC], a
    ret

; Copies bc bytes from de to hl.
MemCopy:
    ld a, b
    or c
    ret z
    ld a, [de]
    ld [hl+], a
    inc de
    dec bc
    jr MemCopy

; Fills bc bytes at hl with e.
MemSet:
    ld a, b
    or c
    ret z
    ld a, e
    ld [hl+], a
    dec bc
    jr MemSet

; The 1bpp font into tiles $20-$5F, colour 3.
LoadFont:
    ld hl, _TILES0 + $20 * 16
    ld de, Font1bpp
    ld bc, Font1bpp.end - Font1bpp
.loop:
    ld a, [de]
    ld [hl+], a
    ld [hl+], a
    inc de
    dec bc
    ld a, b
    or c
    jr nz, .loop
    ret

; Copied to HRAM: the CPU can only reach HRAM while OAM DMA runs.
DmaRoutine:
    ld a, HIGH(wShadowOam)
    ldh [rDMA], a
    ld a, 40
.wait:
    dec a
    jr nz, .wait
    ret
.end:

; Height above the ground, frame by frame, of one jump (index 0: standing).
JumpHeights:
    db 0, 3, 6, 9, 12, 14, 16, 18, 20, 21, 22, 23, 24, 24, 25, 25
    db 25, 25, 24, 24, 23, 22, 21, 20, 18, 16, 14, 12, 9, 6, 3
.end:

; The scene, drawn with tile numbers: 8 rows of sky, then hills, grass and earth.
Map:
    db "  s        s            s       "
    db "       cd         s        cd   "
    db " s    BACKSPIN   cd   s         "
    db "          s                s    "
    db "    cd          s      cd       "
    db "s          cd                 s "
    db "      s             s           "
    db "                                "
    db "        hj              hj      "
    db "       hffj     t      hffj     "
    db "  t   hffffj    k  t  hffffj  t "
    db "  k  hffffffj   k  k hffffffj k "
    db "gggggggggggggggggggggggggggggggg"
    db "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    db "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    db "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
.end:
    ASSERT Map.end - Map == 16 * 32, "the map is 16 rows of 32 tiles"

; The window: frame counter and flower count, then the controls.
Hud:
    db " FRAME 000000   w00 ", "            "
    db " A JUMP B FLOWER    ", "            "
.end:
    ASSERT Hud.end - Hud == 2 * 32, "the HUD is two rows of 32 tiles"

    INCLUDE "tiles.inc"
    INCLUDE "../../roms-test/include/font.inc"

SECTION "shadow OAM", WRAM0[$C100]
wShadowOam: ds 160

SECTION "demo variables", WRAM0
wFlowers: ds 32 ; 1 where a flower grows, per background column

SECTION "demo HRAM", HRAM
hDma: ds DmaRoutine.end - DmaRoutine
hVariables:
hVBlank: ds 1
hTick: ds 1
hSkyScx: ds 1
hGroundScx: ds 1
hFrameBcd: ds 3 ; frames since power-on, BCD, least significant byte first
hFlowerBcd: ds 1
hPad: ds 1
hPressed: ds 1
hPlayerX: ds 1 ; OAM X of the left half
hFacing: ds 1 ; 0 right, 1 left
hWalk: ds 1 ; frames spent walking
hJump: ds 1 ; 0 on the ground, else the frame of the jump
hPaused: ds 1 ; 1 while START has stopped the scrolling
hBottomTile: ds 1
hPlantColumn: ds 1 ; background column to draw a flower in at the next VBlank
hVariablesEnd:
