//! The CGB speed switch (STOP with KEY1 armed) and the PPU's dot phase it moves.

use super::tick::{DIV_APU_BIT, DIV_APU_BIT_DOUBLE_SPEED};
use super::*;
use crate::cgb::{KEY1_STOP_BEGUN, KEY1_STOP_BITS, KEY1_STOP_PALETTES_CUT, KEY1_STOP_VRAM_CUT};
use crate::ppu::CutOff;

/// M-cycles the CPU stays halted after STOP switches the speed (after DIV's reset), while
/// the timer, PPU and APU run on at the new speed: 0x20000 clocks, exactly two turns of the
/// system counter, so DIV reads 0 right after the switch (AGE `spsw-div-cgbBCE`) and a
/// 4096 Hz TIMA counts 0x80 during it (AGE `spsw-stop-prefetch-cgbBCE`). SameBoy times
/// its post-switch HALT alike (0x20008 clocks, counted from before STOP's second M-cycle).
/// An interrupt request ends it early (AGE `caution/spsw-interrupts`; the programming
/// manual warns against relying on it).
const SPEED_SWITCH_PAUSE_M_CYCLES: u32 = 0x20000 / 4;
/// PPU dots a switch into double speed adds relative to the CPU (see `finish_speed_switch`).
const SPEED_SWITCH_PPU_DOTS: u16 = 3;
/// APU cycles a switch into double speed adds relative to the CPU (see `finish_speed_switch`).
const SPEED_SWITCH_APU_CYCLES: u32 = 2;
/// What `halt_wake_interrupts` reports when a speed switch's HALT has run its time: a bit
/// outside the five interrupts, so the CPU wakes without a dispatch.
const SPEED_SWITCH_SETTLED: u8 = 0x80;

impl<'a> Machine<'a> {
    /// Runs the PPU `dots` dots on its own, as if that many more dots had passed for it
    /// than for the CPU (nothing with the LCD off).
    #[cold]
    pub(super) fn run_ppu_dots(&mut self, dots: u16) {
        self.sync_and_recheck();
        if self.hw.ppu.lcdc & 0x80 == 0 {
            return;
        }
        for _ in 0..dots {
            self.tick_ppu::<1>();
        }
    }

    /// The PPU one dot behind its place relative to the CPU's M-cycles (`PpuState::
    /// delay_one_dot`): the dot phase CGB double speed sets.
    #[cold]
    pub(super) fn delay_ppu_one_dot(&mut self) {
        self.sync_and_recheck();
        let hw = &mut *self.hw;
        hw.ppu
            .delay_one_dot(video_memory!(hw), &mut hw.interrupt_flag, &mut self.screen);
    }

    /// `halt_wake_interrupts` during a speed switch's HALT: it also ends when its time is up
    /// (reported as `SPEED_SWITCH_SETTLED`, no interrupt bit); any end clears it.
    #[cold]
    pub(super) fn speed_switch_wake(&mut self, interrupts: u8) -> u8 {
        let hw = &mut *self.hw;
        let settled = hw.m_cycles >= hw.speed_switch_wake_m_cycle;
        if interrupts == 0 && !settled {
            return 0;
        }
        hw.speed_switch_wake_m_cycle = 0;
        interrupts | if settled { SPEED_SWITCH_SETTLED } else { 0 }
    }

    /// The cartridge clock counts time, not CPU M-cycles (`Rom::rtc_now`): brought up to
    /// date at the old pace before the speed changes.
    fn rtc_before_speed_change(&mut self) {
        let hw = &mut *self.hw;
        let now = self.rom.rtc_now_in(hw);
        self.rom.rtc_sync(&mut hw.mbc, now);
    }

    /// `Bus::idle_stopped`: one M-cycle of STOP mode. The system counter stands still (DIV,
    /// TIMA, serial and the frame sequencer with it); a DMG's PPU and APU stand still too,
    /// a CGB's run on (SameBoy `timers_run`, `GB_display_run`, `GB_apu_run`). UNVERIFIED
    /// beyond Pan Docs' "the clock is stopped" for the DMG.
    #[cold]
    pub(super) fn idle_stopped_now(&mut self) {
        self.sync();
        self.hw.m_cycles += 1;
        if self.hw.cgb.is_cgb() {
            let was_mode3 = self.hw.ppu.in_mode3();
            if self.hw.cgb.double_speed() {
                self.tick_double_speed();
            } else {
                self.tick_ppu::<4>();
                self.hw.apu.tick(self.audio);
            }
            if self.hw.cgb.key1 & KEY1_STOP_BITS != 0 {
                self.stopped_cgb_output(was_mode3);
            }
        }
        self.clock.synced_m_cycles = self.hw.m_cycles;
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
        self.require_checks();
    }

    /// A stopped CGB's PPU after one more stopped M-cycle (`ppu/stopped.rs`). In the first,
    /// STOP cuts it off from what the CPU can reach now (with the LCD on): one M-cycle after
    /// its opcode's (SameBoy `enter_stop_mode`, probes `stop_lcd_*`). Later, what it outputs
    /// cut off replaces its pixels, until the wake-up, which is now if a selected P1 line is
    /// low (the CPU looks after this M-cycle).
    #[cold]
    fn stopped_cgb_output(&mut self, was_mode3: bool) {
        let hw = &mut *self.hw;
        let waking = hw.joypad.lines != 0x0F;
        if hw.cgb.key1 & KEY1_STOP_BEGUN != 0 {
            hw.cgb.key1 &= !KEY1_STOP_BEGUN;
            if hw.ppu.lcdc & 0x80 != 0 && !waking {
                if !hw.ppu.palette_locked() {
                    hw.cgb.key1 |= KEY1_STOP_PALETTES_CUT;
                }
                if hw.ppu.cpu_can_access_vram() {
                    hw.cgb.key1 |= KEY1_STOP_VRAM_CUT;
                }
            }
            return;
        }
        let cut_off = if hw.cgb.key1 & KEY1_STOP_PALETTES_CUT != 0 {
            CutOff::Palettes
        } else {
            CutOff::Vram
        };
        hw.ppu.black_out_stopped_pixels(
            cut_off,
            was_mode3,
            waking,
            video_memory!(hw),
            &mut hw.interrupt_flag,
            &mut self.screen,
        );
        if waking {
            hw.cgb.key1 &= !KEY1_STOP_BITS;
        }
    }

    /// What STOP mode does to the LCD as it begins (`ppu/stopped.rs`): a DMG's is blanked;
    /// a CGB's PPU is cut off from what the CPU can reach after this M-cycle.
    fn stop_lcd(&mut self) {
        let hw = &mut *self.hw;
        if hw.cgb.is_cgb() {
            hw.cgb.key1 |= KEY1_STOP_BEGUN;
        } else if hw.ppu.lcdc & 0x80 != 0 {
            self.screen.blank_frame();
        }
    }

    /// The STOP fast path: a stopped DMG with no P1 line low moves nothing but the clock, so
    /// `budget` M-cycles pass at once (a CGB's PPU runs on: it takes `idle_stopped` steps).
    pub(super) fn skip_stopped_cycles(&mut self, budget: u64) {
        self.sync();
        if self.hw.cgb.is_cgb() || self.hw.joypad.lines != 0x0F {
            return;
        }
        self.hw.m_cycles += budget;
        self.clock.synced_m_cycles = self.hw.m_cycles;
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
    }

    /// The DIV-APU event of a speed switch's DIV reset, by the speed before the switch.
    #[cold]
    fn speed_switch_div_apu_edge(&mut self, fell: u16, from_double: bool) {
        let synthesize = self.audio.synthesizes();
        if from_double && fell & DIV_APU_BIT_DOUBLE_SPEED != 0 {
            self.hw.apu.div_apu_event_double_speed(synthesize);
        } else if !from_double && fell & DIV_APU_BIT != 0 {
            self.hw.apu.div_apu_event(synthesize);
        }
    }

    /// `Bus::stop`: a plain STOP resets DIV; with KEY1 armed in CGB mode, the speed switch
    /// starts (true).
    pub(super) fn stop_cpu(&mut self) -> bool {
        self.sync_and_recheck();
        let hw = &mut *self.hw;
        if !(hw.cgb.cgb_mode() && hw.cgb.key1 & 1 != 0) {
            // STOP resets the system counter like a DIV write.
            self.write_io(io::DIV, 0);
            self.stop_lcd();
            return false;
        }
        // CGB speed switch (Pan Docs KEY1). Back to single speed at once; to double speed
        // only after STOP's next M-cycle (KEY1 stays armed until `finish_speed_switch`).
        // SameBoy switches up a few clocks late alike; AGE `spsw-mode0-cgbBCE` sees the PPU
        // position this leaves.
        if hw.cgb.double_speed() {
            self.rtc_before_speed_change();
            self.hw.cgb.key1 = 0;
        }
        true
    }

    /// `Bus::finish_speed_switch`: the new speed, the PPU's dot phase and DIV's reset, and
    /// with `pause` the HALT that follows.
    pub(super) fn finish_speed_switch_now(&mut self, pause: bool) {
        self.sync_and_recheck();
        // Armed still: the switch goes up (down, `stop_cpu` has disarmed it already).
        let from_double = self.hw.cgb.key1 & 1 == 0;
        if self.hw.cgb.key1 & 1 != 0 {
            self.rtc_before_speed_change();
            self.hw.cgb.key1 = 0x80;
            // Into double speed with the LCD on, the PPU ends up 3 dots further on
            // relative to the CPU's M-cycles than this M-cycle's pace gives it: the
            // switch's own T-cycles (SameBoy notes 2 extra PPU dots for it) and the
            // half-speed M-cycle it lands in. APPROX: the dot count is pinned by AGE
            // `spsw-mode0-cgbBCE` (LY and the start of mode 0 after each switch), not by
            // a model of the clock switch. Back to normal speed the phase stays.
            self.run_ppu_dots(SPEED_SWITCH_PPU_DOTS);
            // The APU, clocked with DIV through the switch, comes out 2 APU cycles further
            // on as well (SameBoy: the first T-cycles of the switch still run at single
            // speed). APPROX like the PPU's dots: pinned by probe `speed_switch_pcm`.
            self.hw
                .apu
                .advance_double_speed(SPEED_SWITCH_APU_CYCLES, self.audio);
        }
        if pause {
            let hw = &mut *self.hw;
            let fell = hw.timer.reset_at_speed_switch();
            let apu_bits = DIV_APU_BIT | DIV_APU_BIT_DOUBLE_SPEED;
            if fell & !apu_bits & (COUNTER_EDGE_BITS | hw.serial.clock_bit()) != 0 {
                self.counter_edges(fell & !apu_bits);
            }
            // STOP resets DIV before the new speed takes hold (SameBoy `enter_stop_mode`),
            // so the frame sequencer sees the fall of the bit the old speed watches (bit 12,
            // or 13 at double speed): probe `speed_switch_length`. UNVERIFIED.
            self.speed_switch_div_apu_edge(fell, from_double);
            self.hw.speed_switch_wake_m_cycle =
                self.hw.m_cycles + u64::from(SPEED_SWITCH_PAUSE_M_CYCLES);
        } else {
            // No second-byte M-cycle to reset DIV after: the reset lands at the end of the
            // next M-cycle instead (AGE `caution/spsw-interrupts`: DIV and TIMA read one
            // M-cycle behind an immediate reset).
            self.hw.timer.div_reset_pending = 1;
        }
    }
}
