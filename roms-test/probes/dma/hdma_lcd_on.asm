; model: CGB
; An HBlank VRAM DMA started at 32 consecutive M-cycles from the LCD switched on, across the
; end of line 0's first part (STAT mode 0, no mode 2) into its mode 3; HDMA5 read right
; after: $00 where the first block ran at once, $01 where it waits (hdma_lcd_on.inc).

    TITLE "HDMA LCD ON"
DEF DOUBLE_SPEED EQU 0
DEF BASE_DELAY EQU 0
INCLUDE "hdma_lcd_on.inc"

Title:
    db "HDMA LCD ON", 0
