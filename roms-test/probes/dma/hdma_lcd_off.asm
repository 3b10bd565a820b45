; model: CGB
; HBlank VRAM DMA and the LCD switch. Steps 0-15: a 4-block HBlank transfer is started in
; mode 2 of line 10, and the LCD is switched off 27 + s M-cycles later (across the end of
; mode 3); HDMA5 is read right after, 213 M-cycles later (LCD still off), and in line 2 once
; the LCD is back on. Steps 16-23: with the LCD off, an 8-block transfer is started; HDMA5
; is read right after the write, 213 M-cycles later, then in line s - 15 once the LCD is on.
; Three results per step. Waits on the LCD poll LY: HALT would pause the transfer. SameBoy:
; a transfer started with the LCD off copies one block at once; switching the LCD off
; outside mode 0 copies one.

    TITLE "HDMA LCD OFF"
DEF DOUBLE_SPEED EQU 0
DEF OFF_DELAY EQU 0
INCLUDE "hdma_lcd_off.inc"

Title:
    db "HDMA LCD OFF", 0
