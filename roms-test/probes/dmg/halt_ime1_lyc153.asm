; model: DMG
; halt_ime1_lyc153: HALT with IME 1 at 16 M-cycles around the LY=LYC request of line 153; the handler stores where it would return
INCLUDE "hardware.inc"
    TITLE "HALT IME1 LYC153"
DEF SOURCE EQU 4
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 21
DEF BASE EQU 0
INCLUDE "halt_ime1.inc"
SECTION "title", ROM0
Title:
    db "HALT IME1 LYC153", 0
