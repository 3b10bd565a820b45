; The command-line tests' plain cartridge (`crates/frontend/tests/cli.rs`): 32 KiB, no
; mapper, sets BGP to 0 so that whatever the boot ROM left on the screen shows all white,
; then idles.

INCLUDE "hardware.inc"

    TITLE "BS WHITE IDLE"

SECTION "entry", ROM0[$100]
    jp Start

SECTION "main", ROM0[$150]
Start:
    xor a
    ldh [rBGP], a
.idle:
    jr .idle
