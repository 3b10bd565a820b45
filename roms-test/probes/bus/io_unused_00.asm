; model: CGB
; Unused I/O bits on a CGB in CGB mode: 57 addresses written $00 and read back (io_unused.inc).
INCLUDE "hardware.inc"
    TITLE "IO UNUSED"
    CGB_FLAG $C0
DEF VALUE EQU $00

SECTION "entry", ROM0[$100]
    nop
    jp Start

SECTION "title", ROM0
Title:
    db "IO UNUSED 00", 0

INCLUDE "io_unused.inc"
