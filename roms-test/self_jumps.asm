; Spins on jumps to themselves until interrupts end them (self_jumps.inc); the fast-path
; oracle also runs it on a CGB in compatibility mode.

    TITLE "BS SELF JUMPS"
DEF DOUBLE_SPEED EQU 0
INCLUDE "self_jumps.inc"
