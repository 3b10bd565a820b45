; model: DMG
; stat_hblank_halt: HALT (IME 1) until the mode-0 interrupt of line 64, at SCX 0-7; the handler reads STAT after 8 delays one M-cycle apart (mode 0 to 2 at the line's end shows when it was entered)
INCLUDE "hardware.inc"
    TITLE "STAT HBLANK HALT"
DEF SOURCE EQU 0
DEF WAIT EQU 1
DEF OUTER EQU 8
DEF INNER EQU 8
DEF COARSE EQU 1
DEF BASE EQU 26
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT HBLANK HALT", 0
