; model: DMG
; stat_lyc153_halt: HALT (IME 1) until the LY=LYC interrupt of line 153; the handler reads STAT after 16 delays one M-cycle apart (line 153 to line 0 shows when it was entered)
INCLUDE "hardware.inc"
    TITLE "STAT LYC153 HALT"
DEF SOURCE EQU 2
DEF WAIT EQU 1
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 1
DEF BASE EQU 84
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT LYC153 HALT", 0
