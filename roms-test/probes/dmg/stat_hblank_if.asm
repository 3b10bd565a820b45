; model: DMG
; stat_hblank_if: the M-cycle at which IF bit 1 rises for the mode-0 (HBlank) source on line 64 (IME 0), at SCX 0-7 (rows of 8) and 8 delays one M-cycle apart
INCLUDE "hardware.inc"
    TITLE "STAT HBLANK IF"
DEF SOURCE EQU 0
DEF WAIT EQU 0
DEF OUTER EQU 8
DEF INNER EQU 8
DEF COARSE EQU 1
DEF BASE EQU 27
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT HBLANK IF", 0
