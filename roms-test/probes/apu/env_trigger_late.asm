; model: CGB
; Square 1 (NR12 $F1: volume 15 down, period 1) triggered at 48 M-cycle offsets around the
; 7th DIV-APU event after a DIV write (the one before the envelope's), single speed; PCM12
; read after the 8th. Shows that the envelope's period counts down at the 7th event and
; steps at the 8th: a trigger after the 7th waits a whole envelope period more.
INCLUDE "hardware.inc"
    TITLE "ENV TRIG LATE"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 48
DEF DOUBLE_SPEED EQU 0
DEF SETUP_DELAY EQU 2032
DEF READ_DELAY EQU 310

SECTION "title", ROM0
Title:
    db "ENV TRIG LATE", 0

INCLUDE "env_trigger_late.inc"
