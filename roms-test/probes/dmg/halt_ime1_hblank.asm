; model: DMG
; halt_ime1_hblank: HALT with IME 1 at 12 M-cycles around the mode-0 request of line 64, at SCX 0-7; the handler stores where it would return (after the HALT, the HALT itself, or a NOP before it)
INCLUDE "hardware.inc"
    TITLE "HALT IME1 HBLANK"
DEF SOURCE EQU 0
DEF OUTER EQU 8
DEF INNER EQU 12
DEF COARSE EQU 10
DEF BASE EQU 0
INCLUDE "halt_ime1.inc"
SECTION "title", ROM0
Title:
    db "HALT IME1 HBLANK", 0
