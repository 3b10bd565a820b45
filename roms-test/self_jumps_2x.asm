; self_jumps.asm on a CGB in CGB mode at double speed (self_jumps.inc).

    TITLE "BS SELFJUMPS 2X"
    CGB_FLAG $C0
DEF DOUBLE_SPEED EQU 1
INCLUDE "self_jumps.inc"
