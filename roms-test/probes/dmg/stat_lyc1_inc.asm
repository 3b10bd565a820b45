; model: DMG
; stat_lyc1_inc: an inc a / jr loop (IME 1) until the LY=LYC interrupt of line 1; the handler reads STAT after 16 delays one M-cycle apart
INCLUDE "hardware.inc"
    TITLE "STAT LYC1 INC"
DEF SOURCE EQU 1
DEF WAIT EQU 3
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 1
DEF BASE EQU 0
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT LYC1 INC", 0
