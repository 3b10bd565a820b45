//! The CPU side of the APU: register reads and writes, wave RAM access while the wave
//! channel plays, and channel triggers.

use super::*;

impl ApuState {
    /// FF76 PCM12 / FF77 PCM34 (CGB): the digital outputs (0..=15) of channels 1 and 2, or
    /// 3 and 4, low nibble first. Reads a caught-up copy (reads never change the APU), which
    /// needs no samples.
    pub fn read_pcm(&self, reg: u8) -> u8 {
        let mut now = *self;
        now.catch_up_to(now.apu_cycles_elapsed(), false);
        let (low, high) = if reg == crate::io::PCM12 {
            (
                now.square_pcm(&now.square1, reg::NR11),
                now.square_pcm(&now.square2, reg::NR21),
            )
        } else {
            let wave = wave_output(&now.wave, now.regs[reg::NR32]);
            let noise = now.noise.volume & 0u8.wrapping_sub(!now.noise.lfsr as u8 & 1);
            (
                wave & 0u8.wrapping_sub(now.wave.active & 1),
                noise & 0u8.wrapping_sub(now.noise.active & 1),
            )
        };
        // A volume an envelope took beyond 15 carries into the next nibble (SameBoy ORs its
        // byte-wide samples; UNVERIFIED, see `sequencer::clock_envelope`).
        low | high << 4
    }

    /// A square's output for PCM12: its whole volume byte (not masked to 4 bits as the
    /// mixer's `square_output` is) while its level is 1 and it is on.
    fn square_pcm(&self, tone: &ToneState, nrx1: usize) -> u8 {
        let duty = DUTY_PATTERNS[usize::from(self.regs[nrx1] >> 6)];
        let on = square_level(tone, duty) & tone.active & 1;
        tone.volume & 0u8.wrapping_sub(on)
    }

    /// FF10..=FF3F (`reg` = low byte), incl. read masks and wave RAM quirks.
    pub fn read_register(&self, reg: u8) -> u8 {
        self.read_register_after(reg, 0)
    }

    /// What the CPU reads from `reg` (FF10..=FF3F) once `m_cycles` more APU M-cycles have
    /// ticked, without ticking them. Between frame-sequencer events (before which the
    /// machine catches up, `Machine::read_apu_register`) and register writes, the
    /// registers and the channels' on bits hold; only the wave channel moves through wave
    /// RAM.
    pub fn read_register_after(&self, reg: u8, m_cycles: u64) -> u8 {
        match reg {
            0x10..=0x25 => {
                let index = usize::from(reg - 0x10);
                self.regs[index] | READ_MASK[index]
            }
            0x26 if self.sweep_check_apu_cycles() != 0 => {
                // A sweep check may turn square 1 off in the meantime: play it on a copy.
                let mut now = *self;
                let later = u32::try_from(m_cycles * 2).unwrap_or(u32::MAX);
                now.catch_up_to(now.apu_cycles_elapsed().saturating_add(later), false);
                now.set_sweep_check_apu_cycles(0);
                now.read_register(reg)
            }
            0x26 => {
                (self.regs[reg::NR52] & 0x80)
                    | 0x70
                    | (self.square1.active & 1)
                    | (self.square2.active & 1) << 1
                    | (self.wave.active & 1) << 2
                    | (self.noise.active & 1) << 3
            }
            0x30..=0x3F => match self.wave_ram_access_index_after(m_cycles) {
                WaveRamAccess::Free => self.wave_ram[usize::from(reg & 0x0F)],
                WaveRamAccess::Redirected(index) => self.wave_ram[index],
                WaveRamAccess::Blocked => 0xFF,
            },
            _ => 0xFF,
        }
    }

    /// FF10..=FF3F (`reg` = low byte). `synthesize`: whether samples are being made
    /// ([`AudioOut::synthesizes`]). As [`Self::write_register_at`] with the DIV-APU bit clear.
    pub fn write_register(&mut self, reg: u8, value: u8, synthesize: bool) {
        self.write_register_at(reg, value, false, synthesize);
    }

    /// FF10..=FF3F, told whether the DIV bit whose falling edges make the DIV-APU events
    /// (bit 4, bit 5 at CGB double speed) is set: powering on then skips the first event
    /// (`SKIP_DIV_APU_EVENT`), and an NRx2 write comes after the rising edge at which an
    /// envelope arms (`sequencer::arm_envelope`).
    pub fn write_register_at(
        &mut self,
        reg: u8,
        value: u8,
        div_apu_bit_set: bool,
        synthesize: bool,
    ) {
        self.write_register_settling(reg, value, div_apu_bit_set, synthesize, None);
    }

    /// The write, with the owed flushes (`owed_flush.rs`) settled first if it catches up
    /// and `audio` is given.
    pub(super) fn write_register_settling(
        &mut self,
        reg: u8,
        value: u8,
        div_apu_bit_set: bool,
        synthesize: bool,
        audio: Option<&mut AudioOut>,
    ) {
        // A write that changes nothing the channels run on leaves their catch-up to the
        // next one, and the mixer's level as it is.
        let quiet = self.write_is_quiet(reg, value, synthesize);
        if quiet {
            self.skip_catch_up();
        } else {
            if let Some(audio) = audio {
                self.settle_owed_flushes(audio);
            }
            self.catch_up_to(self.apu_cycles_elapsed(), synthesize);
        }
        match reg {
            0x30..=0x3F => {
                match self.wave_ram_access_index() {
                    WaveRamAccess::Free => self.wave_ram[usize::from(reg & 0x0F)] = value,
                    WaveRamAccess::Redirected(index) => self.wave_ram[index] = value,
                    WaveRamAccess::Blocked => {}
                }
                return;
            }
            0x26 => {
                let was_on = self.powered();
                self.write_nr52(value);
                if !was_on && self.powered() && div_apu_bit_set {
                    self.frame_step |= 1;
                    self.flush_clock |= SKIP_DIV_APU_EVENT;
                }
            }
            0x10..=0x25 if self.powered() => {
                self.write_channel_register(usize::from(reg - 0x10), value, div_apu_bit_set)
            }
            // The CGB ignores every write while powered off.
            _ if self.cgb != 0 => {}
            // Powered off, the DMG still takes the length counters (Pan Docs; Blargg
            // `08-len_ctr_during_power`), but not the duty bits that share NR11/NR21.
            0x11 => self.square1.length = 64 - u16::from(value & 0x3F),
            0x16 => self.square2.length = 64 - u16::from(value & 0x3F),
            0x1B => self.wave.length = 256 - u16::from(value),
            0x20 => self.noise.length = 64 - u16::from(value & 0x3F),
            _ => {}
        }
        if !quiet {
            self.update_level(synthesize);
        }
    }

    /// Whether a write commutes with the channels' catch-up (see `write_register_at`):
    /// wave RAM while the wave channel neither plays nor reads in the background, a length
    /// reload of the wave or noise channel, or the same value again into a register whose
    /// rewrite has no side effect (not a trigger, nor NRx1's duty, NRx2's zombie step,
    /// NR43's clock or NR10's and NR30's stops). Music drivers do these often: a whole new
    /// wave, NR51 and frequencies rewritten every note.
    fn write_is_quiet(&self, reg: u8, value: u8, synthesize: bool) -> bool {
        #[cfg(test)]
        if tests::plain_paths() {
            return false;
        }
        if !self.powered() || self.wave_counts_in_background() || self.background_read_due() != 0 {
            return false;
        }
        let quiet = match reg {
            0x30..=0x3F => self.wave.active == 0,
            0x1B | 0x20 => true,
            0x13 | 0x18 | 0x1C | 0x1D | 0x24 | 0x25 => self.regs[usize::from(reg - 0x10)] == value,
            0x14 | 0x19 | 0x1E | 0x23 => {
                self.regs[usize::from(reg - 0x10)] == value && value & 0x80 == 0
            }
            _ => false,
        };
        quiet && self.level_is_current(synthesize)
    }

    /// Where a CPU access to wave RAM goes right now (the channels are caught up, or not:
    /// reads take `&self`, so the wave channel's pending time is projected on a copy).
    pub(super) fn wave_ram_access_index(&self) -> WaveRamAccess {
        self.wave_ram_access_index_after(0)
    }

    /// `wave_ram_access_index` once `m_cycles` more APU M-cycles have ticked.
    fn wave_ram_access_index_after(&self, m_cycles: u64) -> WaveRamAccess {
        if self.wave.active == 0 {
            return WaveRamAccess::Free;
        }
        let wave = self.wave_after(u64::from(self.pending_t_cycles()) + m_cycles * 4);
        if self.cgb != 0 {
            // CGB: the access always goes to the byte the channel is reading.
            return WaveRamAccess::Redirected(usize::from((wave.position & 31) >> 1));
        }
        // DMG: while playing, wave RAM answers only in the APU cycle in which the channel
        // itself reads it, and then with the byte the channel reads (Pan Docs; Blargg 09, 12).
        if wave.t_cycles_since_read & SINCE_READ_BITS < WAVE_ACCESS_WINDOW_T_CYCLES {
            WaveRamAccess::Redirected(usize::from((wave.position & 31) >> 1))
        } else {
            WaveRamAccess::Blocked
        }
    }

    /// The wave channel's position and read time `t_cycles` from now, without mixing.
    pub(super) fn wave_after(&self, t_cycles: u64) -> WaveState {
        let period = wave_period(self.frequency(reg::NR33, reg::NR34));
        wave_after(self.wave, &self.wave_ram, period, t_cycles)
    }

    pub(super) fn write_nr52(&mut self, value: u8) {
        let was_on = self.powered();
        if value & 0x80 == 0 && was_on {
            // Power off clears every register and counter (SameBoy; Blargg
            // `11-regs_after_power`); wave RAM survives.
            let synth = self.synth;
            let wave_ram = self.wave_ram;
            let cgb = self.cgb;
            let (flush_clock, simulated) = (self.flush_clock, self.m_cycles_simulated);
            *self = ApuState::zeroed();
            self.synth = synth;
            self.wave_ram = wave_ram;
            self.cgb = cgb;
            self.flush_clock = flush_clock;
            self.m_cycles_simulated = simulated;
        } else if value & 0x80 != 0 && !was_on {
            // The frame sequencer starts over: the next DIV-APU event is step 0.
            self.regs[reg::NR52] = 0x80;
            self.frame_step = 0;
            self.start_lf_div();
            self.flush_clock &= !(SKIP_DIV_APU_EVENT | SKIPPED_DIV_APU_EVENT);
            // The noise clock's alignment counts APU cycles from power-on.
            self.noise.timer = 0;
        }
    }

    pub(super) fn write_channel_register(
        &mut self,
        index: usize,
        value: u8,
        div_apu_bit_set: bool,
    ) {
        // A background read about to land lands whatever the write does.
        self.commit_background_read();
        let old = self.regs[index];
        let cgb = self.cgb != 0;
        let old_square_periods = [
            square_period(self.frequency(reg::NR13, reg::NR14)),
            square_period(self.frequency(reg::NR23, reg::NR24)),
        ];
        if cgb {
            let [nr11, nr21] = [self.regs[reg::NR11], self.regs[reg::NR21]];
            match index {
                reg::NR14 => undo_step_on_high_write(
                    &mut self.square1,
                    nr11,
                    old,
                    value,
                    old_square_periods[0],
                ),
                reg::NR24 => undo_step_on_high_write(
                    &mut self.square2,
                    nr21,
                    old,
                    value,
                    old_square_periods[1],
                ),
                _ => {}
            }
        }
        self.regs[index] = value;
        match index {
            reg::NR13 | reg::NR14 => self.reload_if_just_stepped(0, old_square_periods[0]),
            reg::NR23 | reg::NR24 => self.reload_if_just_stepped(1, old_square_periods[1]),
            _ => {}
        }
        match index {
            reg::NR10 if self.sweep_negated != 0 && value & 0x08 == 0 => self.square1.active = 0,
            reg::NR11 => {
                self.square1.length = 64 - u16::from(value & 0x3F);
                hold_square_level(&mut self.square1, old);
            }
            reg::NR21 => {
                self.square2.length = 64 - u16::from(value & 0x3F);
                hold_square_level(&mut self.square2, old);
            }
            reg::NR31 => self.wave.length = 256 - u16::from(value),
            reg::NR33 => self.write_nr33(),
            reg::NR41 => self.noise.length = 64 - u16::from(value & 0x3F),
            reg::NR12 => write_envelope(&mut self.square1, old, value, cgb, div_apu_bit_set),
            reg::NR22 => write_envelope(&mut self.square2, old, value, cgb, div_apu_bit_set),
            reg::NR42 => {
                if value & 0xF8 == 0 {
                    let (nr43, active) = (self.regs[reg::NR43], self.noise.active != 0);
                    self.update_noise_clock(|clock| clock.dac_off(active, nr43));
                }
                write_envelope(&mut self.noise, old, value, cgb, div_apu_bit_set);
            }
            reg::NR43 => self.write_nr43(old, value),
            reg::NR30 if value & 0x80 == 0 => self.stop_wave(),
            reg::NR14 | reg::NR24 | reg::NR34 | reg::NR44 => {
                // NR14, NR24, NR34, NR44 are five registers apart: channel 0..=3.
                let channel = (index - reg::NR14) / 5;
                if self.write_length_enable(channel, old, value) {
                    self.trigger(channel);
                }
            }
            _ => {}
        }
    }

    /// A frequency write in the 2 MHz cycle in which a square's duty step reloaded its timer
    /// (the timer is a whole period: the step came at the end of the caught-up time) reloads
    /// it again with the new frequency, so the period just begun already has it (SameBoy's
    /// `just_reloaded`; UNVERIFIED, the documentation is silent). Pinned by
    /// `probes/apu/sq1_retrigger` and `sq_freq_change`.
    fn reload_if_just_stepped(&mut self, channel: usize, old_period: u32) {
        let (tone, period) = if channel == 0 {
            let period = square_period(self.frequency(reg::NR13, reg::NR14));
            (&mut self.square1, period)
        } else {
            let period = square_period(self.frequency(reg::NR23, reg::NR24));
            (&mut self.square2, period)
        };
        // A stopped channel keeps the flag from its last step: the reload then sets up the
        // countdown a trigger's step rule looks at (`square::restart_steps_on`).
        if tone.timer == old_period {
            tone.timer = period;
        }
    }

    pub(super) fn trigger(&mut self, channel: usize) {
        match channel {
            0 => self.trigger_square1(),
            1 => {
                let nr22 = self.regs[reg::NR22];
                let period = square_period(self.frequency(reg::NR23, reg::NR24));
                let (nr24, lf_div) = (self.regs[reg::NR24], self.lf_div());
                trigger_square(&mut self.square2, nr22, nr24, period, lf_div, self.cgb != 0);
            }
            2 => self.trigger_wave(),
            _ => self.trigger_noise(),
        }
    }

    /// Applies `change` to the noise channel's clock (kept packed in its `timer` between
    /// catch-ups).
    fn update_noise_clock<R>(&mut self, change: impl FnOnce(&mut NoiseClock) -> R) -> R {
        let mut clock = NoiseClock::from_packed(self.noise.timer);
        let result = change(&mut clock);
        self.noise.timer = clock.packed();
        result
    }

    /// NR43 written (it is already in `regs`): the noise clock realigns, and the LFSR may
    /// shift at once (`NoiseClock::nr43_write`).
    fn write_nr43(&mut self, old: u8, value: u8) {
        if self.update_noise_clock(|clock| clock.nr43_write(old, value)) {
            shift_lfsr(&mut self.noise, value);
        }
    }

    /// The noise channel's trigger: the LFSR starts over (all ones), the clock's counter runs
    /// on and only its countdown to the next step reloads (`NoiseClock::trigger`).
    fn trigger_noise(&mut self) {
        let (nr42, nr43) = (self.regs[reg::NR42], self.regs[reg::NR43]);
        let was_active = self.noise.active != 0;
        let start = self.update_noise_clock(|clock| clock.trigger(nr42, nr43, was_active));
        let clock = self.noise.timer;
        trigger_tone(&mut self.noise, nr42, 0);
        self.noise.timer = clock;
        // SameBoy's odd seed 0x0055, in our inverted register.
        self.noise.lfsr = if start.odd_seed { 0x7FAA } else { 0x7FFF };
        if start.instant_shift {
            shift_lfsr(&mut self.noise, nr43);
        }
    }

    /// An NRx4 write's length-counter side: returns whether it triggers the channel.
    ///
    /// Pan Docs "Obscure behavior" (Blargg `02-len_ctr`, `03-trigger`): in the half of the
    /// frame sequencer's period whose next step does not clock lengths, enabling length
    /// clocks it once, and a trigger that reloads a zero length with length enabled loads
    /// the maximum minus one.
    pub(super) fn write_length_enable(&mut self, channel: usize, old: u8, value: u8) -> bool {
        let first_half = self.frame_step & 1 == 1;
        let (length, active, max) = match channel {
            0 => (&mut self.square1.length, &mut self.square1.active, 64),
            1 => (&mut self.square2.length, &mut self.square2.active, 64),
            2 => (&mut self.wave.length, &mut self.wave.active, 256),
            _ => (&mut self.noise.length, &mut self.noise.active, 64),
        };
        let enabling = old & 0x40 == 0 && value & 0x40 != 0;
        if first_half && enabling && *length != 0 {
            *length -= 1;
            if *length == 0 && value & 0x80 == 0 {
                *active = 0;
            }
        }
        let trigger = value & 0x80 != 0;
        if trigger && *length == 0 {
            *length = max;
            if value & 0x40 != 0 && first_half {
                *length -= 1;
            }
        }
        trigger
    }
}

pub(super) enum WaveRamAccess {
    /// The channel is off: the address is used as is.
    Free,
    /// The channel is reading this byte right now; the access goes to it instead.
    Redirected(usize),
    /// The channel holds wave RAM: reads give $FF, writes are lost.
    Blocked,
}
