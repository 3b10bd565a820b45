; model: DMG
; stat_lyc153_if: the M-cycle at which IF bit 1 rises for LY=LYC on line 153 (IME 0), 16 delays one M-cycle apart
INCLUDE "hardware.inc"
    TITLE "STAT LYC153 IF"
DEF SOURCE EQU 2
DEF WAIT EQU 0
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 248
DEF BASE EQU 0
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT LYC153 IF", 0
