//! OAM DMA as the machine runs it (ticked or deferred) and the CGB's VRAM DMA (HDMA).

use super::*;

impl<'a> Machine<'a> {
    pub(super) fn step_dma(&mut self) {
        if let Some((source, index)) = self.hw.dma.step() {
            let byte = self.dma_source_byte(source);
            self.hw.dma.last_byte = byte;
            self.hw.oam[index % 160] = byte;
        }
    }

    /// The byte OAM DMA reads at `source`.
    #[inline(always)]
    pub(super) fn dma_source_byte(&mut self, source: u16) -> u8 {
        match source {
            // DMG: sources from 0xE000 up read work RAM (Mooneye `oam_dma/sources-GS`).
            0xE000.. => *wram_slot(self.hw, source),
            0x8000..=0x9FFF => *vram_slot(self.hw, source),
            _ => self.read_mapped(source),
        }
    }

    /// M-cycles from the next one that may be deferred while OAM DMA is busy: those that
    /// only copy (`DmaState::copying_m_cycles`) while the PPU reads neither OAM nor the
    /// DMA's byte (`PpuState::dots_without_oam_reads`). Nothing else can tell when their
    /// bytes were copied: the CPU is locked out of OAM and of the source's bus, which
    /// holds the only memory the DMA reads (so no write changes a byte still to copy), and
    /// the accesses that see what the DMA did catch it up first (`cpu_read_slow`, OAM
    /// accesses, `peek`, `poll_room`). Single speed only.
    pub(super) fn dma_quiet_m_cycles(&self) -> u32 {
        let hw = &*self.hw;
        if hw.cgb.double_speed() {
            return 0;
        }
        let copying = hw.dma.copying_m_cycles();
        if copying == 0 {
            return 0;
        }
        copying.min(hw.ppu.dots_without_oam_reads() / 4)
    }

    /// The OAM DMA part of `advance_components`: `n` deferred M-cycles of copying
    /// (`dma_quiet_m_cycles`), with the DMA, OAM and the PPU's view of the DMA as `n`
    /// calls of `step_dma` leave them. The ROM windows stay off (the DMA stays active).
    #[inline(never)]
    pub(super) fn advance_dma(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        let (source, first) = self.hw.dma.skip_copies(n);
        let count = n as usize;
        if (0xC000..=0xDFFF).contains(&source) && first + count <= 160 {
            // Work RAM, the usual source (a shadow OAM): the bytes lie in one bank, as one
            // block (the source's page holds them all), so they are copied at once.
            let mut bytes = [0; 160];
            bytes[..count].copy_from_slice(&wram_block(self.hw, source)[..count]);
            self.hw.oam[first..first + count].copy_from_slice(&bytes[..count]);
        } else {
            for k in 0..n as u16 {
                let byte = self.dma_source_byte(source + k);
                self.hw.oam[(first + usize::from(k)) % 160] = byte;
            }
        }
        let last = self.hw.oam[(first + n as usize - 1) % 160];
        self.hw.dma.last_byte = last;
        self.hw.ppu.set_oam_dma(true, last);
    }

    /// Whether the running OAM DMA keeps the CPU away from `addr` this M-cycle.
    #[inline(always)]
    pub(super) fn dma_blocks(&self, addr: u16) -> bool {
        let hw = &*self.hw;
        hw.dma.active != 0 && hw.dma.blocks(addr, hw.cgb.is_cgb())
    }

    /// FF55 HDMA5: bit 7 clear starts a general-purpose VRAM DMA (or, during an HBlank
    /// transfer, stops that one); bit 7 set starts an HBlank transfer. Pan Docs "LCD VRAM
    /// DMA Transfers".
    pub(super) fn write_hdma5(&mut self, value: u8) {
        let cgb = &mut self.hw.cgb;
        if value & 0x80 == 0 && cgb.hdma_hblank_active() {
            // Stopped. The write still loads the length counter, so HDMA5 reads the length
            // just written with bit 7 set. UNVERIFIED: SameBoy and Gambatte both do this
            // (their suites are checked on hardware); Pan Docs says the blocks left.
            cgb.hdma_remaining = 0x80 | (value & 0x7F);
            return;
        }
        cgb.hdma_remaining = value & 0x7F;
        if value & 0x80 != 0 {
            // The first block goes at the next HBlank (or this one, if one is under way):
            // at once if STAT reads mode 0 now, even if the HBlank is over by the next
            // fetch (`PpuState::hdma_starts_in_hblank`).
            cgb.hdma_done_this_hblank = 0;
            if self.hw.ppu.hdma_starts_in_hblank(cgb.double_speed()) {
                self.hblank_dma_block();
            }
            return;
        }
        // General-purpose: every block now, the CPU paused meanwhile.
        loop {
            let last = self.copy_hdma_block();
            self.stall_for_hdma_block();
            if last {
                break;
            }
        }
        self.stall_for_hdma_run();
    }

    /// Copies the next 16-byte VRAM DMA block; true if it was the last.
    pub(super) fn copy_hdma_block(&mut self) -> bool {
        self.settle_clock();
        let (source, dest, last) = self.hw.cgb.hdma_next_block();
        for offset in 0..16 {
            let byte = self.hdma_source_byte(source.wrapping_add(offset));
            *vram_write_slot(self.hw, self.written, 0x8000 | (dest + offset)) = byte;
        }
        last
    }

    /// The byte a VRAM DMA reads at `source`. It reads only ROM, cartridge RAM and work RAM
    /// ($0000-$7FFF, $A000-$DFFF); from VRAM and from $E000 up it sees no memory and copies
    /// $FF. UNVERIFIED: Gambatte copies $FF from VRAM and from $FE00 up (echo RAM from
    /// $E000-$FDFF); SameBoy copies the open bus, the last byte on the cartridge bus, which
    /// fades to $FF after a few cycles (so a block's first bytes may differ; not modelled).
    fn hdma_source_byte(&mut self, source: u16) -> u8 {
        match source {
            0x8000..=0x9FFF | 0xE000.. => 0xFF,
            _ => self.read_mapped(source),
        }
    }

    /// The M-cycles one VRAM DMA block keeps the CPU off the bus: 8 at normal speed, the
    /// same time (16 CPU M-cycles) at double speed (Pan Docs).
    pub(super) fn stall_for_hdma_block(&mut self) {
        let m_cycles = if self.hw.cgb.double_speed() { 16 } else { 8 };
        for _ in 0..m_cycles {
            self.tick();
        }
    }

    /// The M-cycle one VRAM DMA run (a general-purpose transfer, or one HBlank block) keeps
    /// the CPU off the bus beyond its blocks' 8 (16) M-cycles each: at single speed half an
    /// M-cycle before the first byte and half after the last, at double speed one before.
    /// UNVERIFIED: SameBoy's timing (`GB_hdma_run`); probes `dma/gdma_duration*`.
    fn stall_for_hdma_run(&mut self) {
        self.tick();
    }

    /// `Bus::opcode_fetched`: the HBlank VRAM DMA's block, if one is due, runs between an
    /// instruction's opcode fetch and the rest of it; a block due in the middle of an
    /// instruction waits for the next fetch. UNVERIFIED: SameBoy's rule (`GB_cpu_run`);
    /// probes `dma/hdma_readback*` and `dma/hdma_mode0_start`, whose reads of HDMA5 see
    /// the block 2 M-cycles later (3 at double speed) than if it cut into an instruction
    /// at the start of HBlank. Only the full `cpu::step` reports fetches: nothing is quiet
    /// while an HBlank transfer waits (`quiet_m_cycles_cgb`), so every tick is full and
    /// every instruction takes that step.
    #[inline(always)]
    pub(super) fn hblank_dma_after_fetch(&mut self) {
        if self.hw.cgb.hdma_remaining & 0x80 == 0 {
            self.hblank_dma();
            // Its stall ticked on.
            self.settle_clock();
        }
    }

    /// Whether the HBlank VRAM DMA counts the PPU as in HBlank (`PpuState::in_hblank`).
    pub(super) fn in_hblank_for_dma(&self) -> bool {
        self.hw.ppu.in_hblank(self.hw.cgb.double_speed())
    }

    /// The LCD was just switched off in mode 0 before the HBlank transfer's block was due
    /// (at double speed the block waits a few dots into mode 0, `in_hblank`): this HBlank's
    /// block never comes, nor one for the time the LCD stays off (switched off in another
    /// mode, or later in mode 0, the transfer copies that one block, `hblank_dma`).
    /// UNVERIFIED: SameBoy's rule (a block starts at LCD off only if STAT showed another
    /// mode, and one already due runs); probe `dma/hdma_lcd_off_2x`.
    pub(super) fn hdma_at_lcd_off_early_in_mode0(&mut self) {
        self.hw.cgb.hdma_done_this_hblank = 1;
    }

    /// HBlank VRAM DMA: one block at the start of each HBlank of lines 0..=143, unless the
    /// CPU is halted or stopped then (only `hblank_dma_after_fetch` calls this;
    /// SameBoy and Gambatte keep the transfer inactive during HALT and STOP). The block of
    /// an HBlank the CPU slept into runs when it wakes, if it halted outside that HBlank:
    /// the flag that says this HBlank's block is done is neither set nor cleared while the
    /// CPU sleeps (SameBoy: a block starts at wake-up in mode 0 only if HALT began in
    /// another mode).
    ///
    /// With the LCD off (STAT reads mode 0) the transfer counts as in one long HBlank: a
    /// transfer started then copies one block at once and the rest once the LCD runs
    /// (SameBoy starts a block whenever HDMA5 is written while STAT reads mode 0, as it does
    /// with the LCD off).
    /// UNVERIFIED: no test ROM here decides it.
    #[cold]
    #[inline(never)]
    pub(super) fn hblank_dma(&mut self) {
        if !self.hw.cgb.hdma_hblank_active() {
            return;
        }
        let lcd_off = self.hw.ppu.lcdc & 0x80 == 0;
        if !(lcd_off || self.in_hblank_for_dma()) {
            self.hw.cgb.hdma_done_this_hblank = 0;
            return;
        }
        if self.hw.cgb.hdma_done_this_hblank != 0 {
            return;
        }
        self.hblank_dma_block();
    }

    /// This HBlank's block of the HBlank transfer, now.
    fn hblank_dma_block(&mut self) {
        self.hw.cgb.hdma_done_this_hblank = 1;
        self.copy_hdma_block();
        self.stall_for_hdma_block();
        self.stall_for_hdma_run();
    }
}
