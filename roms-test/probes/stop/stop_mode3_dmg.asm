; model: DMG
; STOP (DMG) entered across mode 3 of a line, woken by a button (the input script presses A
; every 60000 M-cycles for 2000). Step s (0-15): with the buttons selected in P1 and none
; pressed, from the start of line 9 (LY=LYC HALT), 81 + 4s M-cycles pass (reaching line 10's
; mode 2, mode 3 and the start of mode 0), STOP; right after the wake-up LY, STAT and the VRAM
; byte at $8000 (written $5A with the LCD off) are read. Shows where the frozen PPU stands when
; the CPU wakes: the mode STOP began in, VRAM still locked if that was mode 3. Three results
; per step.

INCLUDE "hardware.inc"

    TITLE "STOP MODE3 DMG"

DEF CGB EQU 0
INCLUDE "stop_mode3.inc"

Title:
    db "STOP MODE3 DMG", 0
