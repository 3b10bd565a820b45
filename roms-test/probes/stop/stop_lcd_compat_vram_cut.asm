; model: CGB
; stop_lcd_vram_cut in DMG compatibility mode (no CGB flag; stop_lcd.inc), one M-cycle after
; stop_lcd_compat_mode3_end: palette RAM is still closed to the CPU there in compatibility
; mode too, so the PPU is cut off from VRAM alone: white (colour 3 through BGP $1B and the
; compatibility palette's colour 0).

INCLUDE "hardware.inc"

    TITLE "STOP LCD"

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 13
DEF DOUBLE_SPEED EQU 0
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
