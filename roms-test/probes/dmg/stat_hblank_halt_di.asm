; model: DMG
; stat_hblank_halt_di: HALT with IME 0 until the mode-0 source of line 64 raises IF, at SCX 0-7; then STAT after 8 delays one M-cycle apart (mode 0 to 2 at the line end shows when HALT ended)
INCLUDE "hardware.inc"
    TITLE "HBLANK HALT DI"
DEF SOURCE EQU 0
DEF WAIT EQU 4
DEF OUTER EQU 8
DEF INNER EQU 8
DEF COARSE EQU 1
DEF BASE EQU 31
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT HBLANK HALT DI", 0
