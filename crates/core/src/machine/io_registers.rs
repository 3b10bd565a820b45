//! I/O register dispatch: the CPU's reads and writes of 0xFF00..=0xFF7F, and the PPU and
//! APU register reads told from the deferred state.

use super::tick::div_apu_bit;
use super::*;

impl<'a> Machine<'a> {
    /// The CPU's read of a PPU register (FF40..=FF4B but FF46). The components catch up
    /// only when the value depends on steps the deferred M-cycles may have run and cannot
    /// be told from the PPU's position (`PpuState::read_register_after`): a catch-up cuts
    /// the quiet window into one more piece to run.
    #[inline(always)]
    pub(super) fn read_ppu_register(&mut self, reg: u8) -> u8 {
        let deferred = self.hw.m_cycles - self.clock.synced_m_cycles;
        let value = match self.hw.ppu.read_register_after(reg, deferred) {
            Some(value) => {
                // Checked against the caught-up PPU in debug builds (where the quiet window
                // is then cut here, which changes nothing the deferral promises).
                #[cfg(debug_assertions)]
                {
                    self.sync();
                    debug_assert_eq!(value, self.hw.ppu.read_register(reg), "FF{reg:02X}");
                }
                value
            }
            None => {
                self.require_checks();
                self.sync();
                self.hw.ppu.read_register(reg)
            }
        };
        if matches!(reg, io::LY | io::STAT) {
            self.report_poll_read(reg, value);
        }
        value
    }

    /// A CGB's LY read, from the PPU caught up (its LY lags the line's start by two dots,
    /// `PpuState::ly_as_read`), reported to `poll_loop` as every LY read is. Out of line:
    /// `cpu_read_slow` keeps its shape for a DMG's reads.
    #[cold]
    #[inline(never)]
    pub(super) fn read_cgb_ly(&mut self) -> u8 {
        self.sync();
        let value = self.hw.ppu.read_register(io::LY);
        self.report_poll_read(io::LY, value);
        value
    }

    /// Tells the run loop's checks of a CPU read of LY or STAT (`poll_loop`).
    #[inline(always)]
    fn report_poll_read(&mut self, reg: u8, value: u8) {
        self.require_checks();
        self.poll_read = PollRead {
            m_cycle: self.hw.m_cycles,
            reg,
            value,
        };
        self.events |= Events::POLL_READ;
    }

    /// The CPU's read of an APU register (FF10..=FF3F) at single speed: the APU as the
    /// deferred M-cycles leave it, told without ticking them (`ApuState::
    /// read_register_after`). At double speed, where each M-cycle moves the APU one of its
    /// 2 MHz cycles rather than two, the read catches up (`cpu_read_slow`).
    pub(super) fn read_apu_register(&mut self, reg: u8) -> u8 {
        let deferred = self.hw.m_cycles - self.clock.synced_m_cycles;
        let within = u32::try_from(deferred).unwrap_or(u32::MAX);
        if div_apu_event_within(self.hw.timer.system_counter, within) {
            // A frame-sequencer event in the deferred M-cycles (a quiet window passes them,
            // `advance_components`) may clock lengths, sweep and envelopes: catch up.
            self.require_checks();
            self.sync();
            self.hw.apu.settle_owed_flushes(self.audio);
            return self.hw.apu.read_register(reg);
        }
        // Owed flushes (`apu/owed_flush.rs`) settled: wave RAM answers by the channel's time.
        self.hw.apu.settle_owed_flushes(self.audio);
        let value = self.hw.apu.read_register_after(reg, deferred);
        // Checked against the caught-up APU in debug builds, as PPU register reads are.
        #[cfg(debug_assertions)]
        {
            self.sync();
            self.hw.apu.settle_owed_flushes(self.audio);
            debug_assert_eq!(value, self.hw.apu.read_register(reg), "FF{reg:02X}");
        }
        value
    }

    #[inline]
    pub(super) fn read_io(&self, reg: u8) -> u8 {
        let hw = &*self.hw;
        match reg {
            io::P1 => hw.joypad.read(),
            io::SB | io::SC => hw.serial.read(reg, hw.cgb.cgb_mode()),
            io::DIV..=io::TAC => hw.timer.read(reg),
            io::IF => hw.interrupt_flag | 0xE0,
            io::NR10..=0x3F => hw.apu.read_register(reg),
            io::DMA => hw.dma.source_high,
            io::LCDC..=io::WX => hw.ppu.read_register(reg),
            io::PCM12 | io::PCM34 if hw.cgb.is_cgb() => hw.apu.read_pcm(reg),
            _ => hw.cgb.read(reg, hw.ppu.palette_locked()).unwrap_or(0xFF),
        }
    }

    pub(super) fn write_io(&mut self, reg: u8, value: u8) {
        let hw = &mut *self.hw;
        match reg {
            io::P1 => hw.joypad.write(value, &mut hw.interrupt_flag),
            io::SB | io::SC => {
                if let SerialWrite::Started(byte) = hw.serial.write(reg, value, hw.cgb.cgb_mode()) {
                    self.serial.push(byte);
                    self.events |= Events::SERIAL_BYTE;
                }
            }
            io::DIV..=io::TAC => {
                let fell = hw.timer.write(reg, value);
                if fell & (COUNTER_EDGE_BITS | hw.serial.clock_bit()) != 0 {
                    self.counter_edges(fell);
                }
            }
            io::IF => hw.interrupt_flag = value & 0x1F,
            io::NR10..=0x3F => {
                let bit_set = hw.timer.system_counter & div_apu_bit(hw.cgb.double_speed()) != 0;
                hw.apu.write_register_owing(reg, value, bit_set, self.audio);
            }
            io::DMA => hw.dma.request(value),
            io::LCDC..=io::WX => {
                let lcd_was_on = hw.ppu.lcdc & 0x80 != 0;
                let before_hblank_dma =
                    hw.ppu.stat & 3 == 0 && !hw.ppu.in_hblank(hw.cgb.double_speed());
                hw.ppu.write_register(reg, value, &mut hw.interrupt_flag);
                if reg == io::LCDC && lcd_was_on && value & 0x80 == 0 && before_hblank_dma {
                    self.hdma_at_lcd_off_early_in_mode0();
                }
                let hw = &mut *self.hw;
                // Switched on at double speed, the LCD starts a dot later within the
                // M-cycle than at normal speed (AGE's LCD alignment; AGE `stat-mode-ds`).
                if reg == io::LCDC && !lcd_was_on && value & 0x80 != 0 && hw.cgb.double_speed() {
                    self.delay_ppu_one_dot();
                }
            }
            io::BOOT if value != 0 => {
                hw.boot_rom_mapped = 0;
                self.refresh_rom_windows();
            }
            io::HDMA5 if hw.cgb.cgb_mode() => self.write_hdma5(value),
            _ => {
                let (mapped, palette_locked) = (hw.boot_rom_mapped != 0, hw.ppu.palette_locked());
                if hw.cgb.write(reg, value, mapped, palette_locked) && reg == io::KEY0 {
                    hw.ppu.set_colour_mode(hw.cgb.mode());
                }
                if reg == io::SVBK {
                    self.refresh_wram_fast_len();
                }
            }
        }
    }
}
