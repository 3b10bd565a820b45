; model: CGB
; STOP on a CGB (KEY1 not armed) entered across mode 3 of a line, woken by a button (the input
; script presses A every 40000 M-cycles for 2000). Step s (0-15): a first STOP is woken by a
; press; the CPU waits 3000 M-cycles (the press is over), turns the LCD off and on, waits for
; the start of line 9 (LY=LYC HALT), lets 81 + 4s M-cycles pass (reaching line 10's mode 2,
; mode 3 and the start of mode 0) and executes STOP; the next press wakes it, and at once LY,
; STAT and the VRAM byte at $8000 (written $5A with the LCD off) are read. The second wake-up
; is a fixed time after the first, whatever the step: equal results show that a STOP begun in
; mode 3 leaves the CGB's PPU (which runs on through STOP) and VRAM alone. Three results per
; step.

INCLUDE "hardware.inc"

    TITLE "STOP MODE3"
    CGB_FLAG $C0

DEF CGB EQU 1
INCLUDE "stop_mode3.inc"

Title:
    db "STOP MODE3", 0
