; model: DMG
; stat_lyc1_nop: a NOP slide (IME 1) until the LY=LYC interrupt of line 1; the handler reads STAT after 16 delays one M-cycle apart
INCLUDE "hardware.inc"
    TITLE "STAT LYC1 NOP"
DEF SOURCE EQU 1
DEF WAIT EQU 2
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 1
DEF BASE EQU 0
DEF COARSE_WAIT EQU 240
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT LYC1 NOP", 0
