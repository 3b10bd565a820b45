; model: DMG
; halt_ime1_mode2: HALT with IME 1 at 16 M-cycles around the mode-2 request of line 65; the handler stores where it would return
INCLUDE "hardware.inc"
    TITLE "HALT IME1 MODE 2"
DEF SOURCE EQU 3
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 22
DEF BASE EQU 0
INCLUDE "halt_ime1.inc"
SECTION "title", ROM0
Title:
    db "HALT IME1 MODE 2", 0
