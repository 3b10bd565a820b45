; model: CGB
; halt_ime1_vblank_cgb: (CGB-E, CGB mode) HALT with IME 1 at 16 M-cycles around the VBlank request; the handler stores where it would return
INCLUDE "hardware.inc"
    TITLE "HALT IME1 VBLANK"
DEF SOURCE EQU 2
DEF OUTER EQU 1
DEF INNER EQU 16
DEF COARSE EQU 22
DEF BASE EQU 0
INCLUDE "halt_ime1.inc"
SECTION "title", ROM0
Title:
    db "HALT IME1 VBLANK", 0
