; model: DMG
; stat_lyc1_halt_di: HALT with IME 0 until LY=LYC on line 1 raises IF; then STAT after 16 delays one M-cycle apart (mode 2 to 3)
INCLUDE "hardware.inc"
    TITLE "LYC1 HALT DI"
DEF SOURCE EQU 1
DEF WAIT EQU 4
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 1
DEF BASE EQU 0
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT LYC1 HALT DI", 0
