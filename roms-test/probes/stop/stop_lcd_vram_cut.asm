; model: CGB
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun just after line 9's mode 3,
; palette RAM still closed to the CPU and VRAM open; the screen captured while stopped shows
; red: the PPU cut off from VRAM alone reads $FF (attributes: palette 7; tile data: colour 3).

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 13
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
