; model: DMG
; stat_lyc153_halt_di: HALT with IME 0 until LY=LYC on line 153 raises IF; then STAT after 16 delays one M-cycle apart (line 153 to line 0)
INCLUDE "hardware.inc"
    TITLE "LYC153 HALT DI"
DEF SOURCE EQU 2
DEF WAIT EQU 4
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 1
DEF BASE EQU 94
DEF COARSE_WAIT EQU 1
INCLUDE "stat_timing.inc"
SECTION "title", ROM0
Title:
    db "STAT LYC153 HALT DI", 0
