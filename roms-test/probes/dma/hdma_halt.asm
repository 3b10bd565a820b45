; model: CGB
; An HBlank VRAM DMA while the CPU sleeps in HALT (IME off). Case k (1-8): a 16-block
; transfer started in VBlank; at line 10 (polled) the CPU halts until LY = LYC = 10 + k, reads
; HDMA5 and LY, halts again until that line's mode 0 interrupt, reads HDMA5, then stops the
; transfer. Three results per case: the blocks left minus one after the first wake-up (no
; block ran while halted, whatever k), the line it woke in, and the blocks left minus one
; after the wake-up in mode 0 (SameBoy: a HALT begun outside mode 0 that ends in it lets
; that HBlank's block run at once).

INCLUDE "hardware.inc"

    TITLE "HDMA HALT"
    CGB_FLAG $C0

DEF DOUBLE_SPEED EQU 0
INCLUDE "hdma_halt.inc"

Title:
    db "HDMA HALT", 0
