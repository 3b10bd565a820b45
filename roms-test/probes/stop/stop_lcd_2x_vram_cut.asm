; model: CGB
; STOP with the LCD on and a picture shown (stop_lcd.inc), begun at double speed just after
; line 9's mode 3 (VRAM open, palette RAM closed); the screen captured while stopped shows red,
; as `stop_lcd_vram_cut`.

INCLUDE "hardware.inc"

    TITLE "STOP LCD"
    CGB_FLAG $C0

DEF STOP_LINE EQU 9
DEF STOP_DELAY EQU 76
DEF DOUBLE_SPEED EQU 1
DEF WAKE EQU 0

INCLUDE "stop_lcd.inc"
