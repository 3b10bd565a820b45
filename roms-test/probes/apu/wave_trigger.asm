; model: CGB
; The wave channel's first samples after a trigger, read through PCM34 (low nibble) at 60
; M-cycle offsets at single speed: frequency $7F8 (4 M-cycles per sample), wave RAM a ramp
; 0..15..0, full volume. Shows the first sample's delay, which sample comes first and the
; stale sample buffer before it.
INCLUDE "hardware.inc"
    TITLE "WAVE TRIGGER"
    CGB_FLAG $C0
DEF SWEEP_COUNT EQU 60
DEF DOUBLE_SPEED EQU 0

SECTION "title", ROM0
Title:
    db "WAVE TRIGGER", 0

INCLUDE "wave_trigger.inc"
