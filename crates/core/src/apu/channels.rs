//! The channels in time: event-exact simulation of a catch-up, with closed forms for
//! channels nobody hears, and the mixer.

use super::lfsr_jump::lfsr_15_bit_after;
use super::*;

impl ApuState {
    /// Simulates `t_cycles` T-cycles: every channel event at its own T-cycle.
    ///
    /// No register changes during a run, so periods and mixer weights are computed once.
    /// Channels that cannot be heard (volume 0, muted, not routed, DAC off) are moved on in
    /// closed form; the others step event by event, and the mixer level is updated by the
    /// one channel that changed. Tested against [`Self::run_reference`]. Without
    /// `synthesize`, every channel is moved on in closed form and the synthesizer is left
    /// alone.
    pub(super) fn run(&mut self, t_cycles: u32, synthesize: bool) {
        let weights = self.mix_weights();
        let nr43 = self.regs[reg::NR43];
        let periods = [
            square_period(self.frequency(reg::NR13, reg::NR14)),
            square_period(self.frequency(reg::NR23, reg::NR24)),
            wave_period(self.frequency(reg::NR33, reg::NR34)),
            noise_period(nr43),
        ];
        let active = [
            self.square1.active != 0,
            self.square2.active != 0,
            self.wave.active != 0,
            // Clock shifts 14 and 15 stop the noise channel's clock (Pan Docs).
            self.noise.active != 0 && nr43 >> 4 < 14,
        ];
        let loud = [
            self.square1.volume & 15 != 0,
            self.square2.volume & 15 != 0,
            (self.regs[reg::NR32] >> 5) & 3 != 0,
            self.noise.volume & 15 != 0,
        ];
        let mut audible = [false; 4];
        for channel in 0..4 {
            audible[channel] =
                synthesize && active[channel] && loud[channel] && weights[channel] != [0, 0];
        }

        // The silent ones, in one go.
        if active[0] && !audible[0] {
            skip_square(&mut self.square1, t_cycles, periods[0]);
        }
        if active[1] && !audible[1] {
            skip_square(&mut self.square2, t_cycles, periods[1]);
        }
        if !audible[2] {
            if active[2] {
                self.wave = self.wave_after(u64::from(t_cycles));
            } else {
                self.wave.t_cycles_since_read =
                    since_read_after(self.wave.t_cycles_since_read, t_cycles);
                if self.wave_counts_in_background() {
                    self.run_background_wave(t_cycles, periods[2]);
                }
            }
        }
        if active[3] && !audible[3] {
            skip_noise(&mut self.noise, t_cycles, periods[3], nr43);
        }
        if audible == [false; 4] {
            if synthesize {
                self.synth.advance(t_cycles);
            }
            return;
        }

        // The audible ones, event by event.
        let mut digital = self.digital_outputs();
        let mut level = self.synth.level();
        let mut synth = self.synth.steps();
        // A square's output changes at only 2 of its 8 duty steps: the others are no events
        // here. `square_due` counts down to its next change; `square_lag` holds the T-cycles
        // it has run since its state was last brought up to date (in closed form).
        let nrx1 = [self.regs[reg::NR11], self.regs[reg::NR21]];
        let mut square_due = [u32::MAX; 2];
        let mut square_lag = [0u32; 2];
        // Duty steps up to and including the next change.
        let mut square_steps = [0u32; 2];
        for (channel, tone) in [&self.square1, &self.square2].into_iter().enumerate() {
            if audible[channel] {
                (square_due[channel], square_steps[channel]) =
                    next_square_change(tone, nrx1[channel], periods[channel]);
            }
        }
        // The same for the wave channel: only the reads that change its output are events.
        let nr32 = self.regs[reg::NR32];
        let (mut wave_due, mut wave_reads) = (u32::MAX, 0);
        let mut wave_lag = 0u32;
        if audible[2] {
            (wave_due, wave_reads) = next_wave_change(&self.wave, &self.wave_ram, nr32, periods[2]);
        }
        // An audible noise channel in 15-bit mode, routed both ways alike (as usual), runs in
        // trains that reach across the other channels' changes (`NoiseTrain`).
        let trains = audible[3] && nr43 & 0x08 == 0 && weights[3][0] == weights[3][1];
        let total = t_cycles;
        let mut train = NoiseTrain::EMPTY;
        if trains {
            let first = self.noise.timer.max(1);
            train = NoiseTrain::new(self.noise.lfsr, first, total, periods[3]);
        }
        let mut t_cycles = t_cycles;
        while t_cycles > 0 {
            let mut step = t_cycles.min(square_due[0]).min(square_due[1]).min(wave_due);
            let mut noise_at_step = 0;
            if trains {
                let now = total - t_cycles;
                let moved;
                (moved, noise_at_step, digital[3], level) = train.take(
                    &mut synth,
                    now,
                    now + step,
                    total,
                    [periods[3], u32::from(self.noise.volume & 15)],
                    weights[3][0],
                    digital[3],
                    level,
                );
                t_cycles -= step;
                synth.advance(step - moved);
            } else if audible[3] {
                // The noise channel is often far faster than the others (up to 524,288 shifts
                // a second): run its events before the others' next one in a tight loop.
                let timer = self.noise.timer.max(1);
                let elapsed = if timer >= step {
                    self.noise.timer = timer; // Nothing before the others' next event.
                    0
                } else {
                    let elapsed;
                    (elapsed, digital[3], level) = run_noise_until(
                        &mut self.noise,
                        &mut synth,
                        step,
                        nr43,
                        weights[3],
                        digital[3],
                        level,
                    );
                    elapsed
                };
                if elapsed > 0 {
                    // Nothing else happened meanwhile: the other timers just ran.
                    for channel in 0..2 {
                        if audible[channel] {
                            square_due[channel] -= elapsed;
                            square_lag[channel] += elapsed;
                        }
                    }
                    if audible[2] {
                        wave_due -= elapsed;
                        wave_lag += elapsed;
                    }
                    t_cycles -= elapsed;
                    step -= elapsed;
                }
                step = step.min(self.noise.timer);
                t_cycles -= step;
                synth.advance(step);
            } else {
                t_cycles -= step;
                synth.advance(step);
            }

            // The level moves by each channel's change as it comes (a DAC step is 2 units of
            // its ±15 swing), not by a remix of all four after the step.
            let mut changed = false;
            let mut change_to = |channel: usize, output: u8, digital: &mut [u8; 4]| {
                let change = 2 * (i32::from(output) - i32::from(digital[channel]));
                level[0] += weights[channel][0] * change;
                level[1] += weights[channel][1] * change;
                digital[channel] = output;
                changed = true;
            };
            for (channel, tone) in [&mut self.square1, &mut self.square2]
                .into_iter()
                .enumerate()
            {
                if audible[channel] {
                    square_due[channel] -= step;
                    square_lag[channel] += step;
                    if square_due[channel] == 0 {
                        // Exactly `square_steps` duty steps on, the last one just now.
                        let position = u32::from(tone.position) + square_steps[channel];
                        tone.position = (position & 7) as u8;
                        tone.timer = periods[channel];
                        square_lag[channel] = 0;
                        change_to(channel, square_output(tone, nrx1[channel]), &mut digital);
                        (square_due[channel], square_steps[channel]) =
                            next_square_change(tone, nrx1[channel], periods[channel]);
                    }
                }
            }
            if audible[2] {
                wave_due -= step;
                wave_lag += step;
                if wave_due == 0 {
                    // Exactly `wave_reads` reads on, the last one just now.
                    let wave = &mut self.wave;
                    wave.position = ((u32::from(wave.position) + wave_reads) & 31) as u8;
                    wave.sample_buffer = self.wave_ram[usize::from(wave.position >> 1)];
                    wave.t_cycles_since_read &= !SINCE_READ_BITS;
                    wave.timer = periods[2];
                    wave_lag = 0;
                    change_to(2, wave_output(wave, nr32), &mut digital);
                    (wave_due, wave_reads) =
                        next_wave_change(wave, &self.wave_ram, nr32, periods[2]);
                }
            }
            if trains {
                if noise_at_step != digital[3] {
                    change_to(3, noise_at_step, &mut digital);
                }
            } else if audible[3] {
                let noise = &mut self.noise;
                noise.timer = noise.timer.max(1) - step;
                if noise.timer == 0 {
                    noise.timer = periods[3];
                    shift_lfsr(noise, nr43);
                    change_to(3, noise_output(noise), &mut digital);
                }
            }
            if changed {
                synth.set_level(level);
            }
        }
        for (channel, tone) in [&mut self.square1, &mut self.square2]
            .into_iter()
            .enumerate()
        {
            if square_lag[channel] > 0 {
                skip_square(tone, square_lag[channel], periods[channel]);
            }
        }
        if wave_lag > 0 {
            self.wave = wave_after(self.wave, &self.wave_ram, periods[2], u64::from(wave_lag));
        }
        if trains {
            // The register after the shifts taken, the next shift still ahead.
            self.noise.lfsr = train.lfsr_after(train.taken);
            self.noise.timer = train.first + train.taken * periods[3] - total;
        }
    }

    /// The plain version of [`Self::run`]: every event of every active channel, and a full
    /// remix after each. The oracle for `run`'s shortcuts (see the tests at the end).
    #[cfg(test)]
    pub(super) fn run_reference(&mut self, mut t_cycles: u32, synthesize: bool) {
        if self.wave.active == 0 && self.wave_counts_in_background() {
            let period = wave_period(self.frequency(reg::NR33, reg::NR34));
            self.run_background_wave(t_cycles, period);
        }
        while t_cycles > 0 {
            // The next moment something happens, or the end of this run.
            let mut step = t_cycles;
            if self.square1.active != 0 {
                step = step.min(self.square1.timer.max(1));
            }
            if self.square2.active != 0 {
                step = step.min(self.square2.timer.max(1));
            }
            if self.wave.active != 0 {
                step = step.min(self.wave.timer.max(1));
            }
            let noise_clocked = self.noise.active != 0 && self.regs[reg::NR43] >> 4 < 14;
            if noise_clocked {
                step = step.min(self.noise.timer.max(1));
            }
            t_cycles -= step;
            if synthesize {
                self.synth.advance(step);
            }

            let mut changed = false;
            if self.square1.active != 0 {
                let period = square_period(self.frequency(reg::NR13, reg::NR14));
                changed |= step_square(&mut self.square1, step, period);
            }
            if self.square2.active != 0 {
                let period = square_period(self.frequency(reg::NR23, reg::NR24));
                changed |= step_square(&mut self.square2, step, period);
            }
            self.wave.t_cycles_since_read = since_read_after(self.wave.t_cycles_since_read, step);
            if self.wave.active != 0 {
                let period = wave_period(self.frequency(reg::NR33, reg::NR34));
                let wave = &mut self.wave;
                wave.timer = wave.timer.max(1) - step;
                if wave.timer == 0 {
                    wave.timer = period;
                    wave.position = (wave.position + 1) & 31;
                    wave.sample_buffer = self.wave_ram[usize::from(wave.position >> 1)];
                    wave.t_cycles_since_read &= !SINCE_READ_BITS;
                    changed = true;
                }
            }
            if noise_clocked {
                let noise = &mut self.noise;
                noise.timer = noise.timer.max(1) - step;
                if noise.timer == 0 {
                    let nr43 = self.regs[reg::NR43];
                    noise.timer = noise_period(nr43);
                    let feedback = (noise.lfsr ^ (noise.lfsr >> 1)) & 1;
                    noise.lfsr = (noise.lfsr >> 1) & 0x3FFF | feedback << 14;
                    if nr43 & 0x08 != 0 {
                        noise.lfsr = noise.lfsr & !0x40 | feedback << 6;
                    }
                    changed = true;
                }
            }
            if changed {
                self.update_level(synthesize);
            }
        }
    }

    pub(super) fn frequency(&self, low: usize, high: usize) -> u16 {
        u16::from(self.regs[low]) | u16::from(self.regs[high] & 7) << 8
    }

    /// Tells the synthesizer the mixer's present output (if `synthesize`).
    #[inline]
    pub(super) fn update_level(&mut self, synthesize: bool) {
        if synthesize {
            let level = self.mix();
            self.synth.set_level(level);
        }
    }

    /// The mixer: each channel's DAC output, routed by NR51 and scaled by NR50.
    ///
    /// Each side's weight is one factor (NR50's volume times the scale) for every channel it
    /// hears, so a side's level is that factor times the sum of its channels' analog outputs:
    /// one multiply a side, not one a channel (every register write and frame-sequencer
    /// step that skips its catch-up mixes; [`Self::mix_weights`] gives the same sums).
    pub(super) fn mix(&self) -> [i32; 2] {
        let heard = self.dacs_on();
        let nr51 = self.regs[reg::NR51];
        let routes = [nr51 >> 4 & heard, nr51 & heard];
        if routes == [0, 0] {
            // Nothing heard (sound off, as in most tests): nothing to look at.
            return [0, 0];
        }
        let digital = self.digital_outputs();
        let mut sums = [0i32; 2];
        for (channel, &output) in digital.iter().enumerate() {
            // A DAC maps digital 0..=15 linearly onto its analog swing, -15..=15 units.
            let analog = 2 * i32::from(output) - 15;
            for side in 0..2 {
                sums[side] += analog * i32::from(routes[side] >> channel & 1);
            }
        }
        let nr50 = self.regs[reg::NR50];
        [
            sums[0] * (i32::from((nr50 >> 4) & 7) + 1) * LEVEL_PER_DAC_STEP,
            sums[1] * (i32::from(nr50 & 7) + 1) * LEVEL_PER_DAC_STEP,
        ]
    }

    /// Bit `channel` set where that channel's DAC is on (a DAC that is off outputs 0, no DC
    /// offset).
    #[inline]
    fn dacs_on(&self) -> u8 {
        u8::from(self.regs[reg::NR12] & 0xF8 != 0)
            | u8::from(self.regs[reg::NR22] & 0xF8 != 0) << 1
            | u8::from(self.regs[reg::NR30] & 0x80 != 0) << 2
            | u8::from(self.regs[reg::NR42] & 0xF8 != 0) << 3
    }

    /// What one analog unit of each channel adds to the left and right output: zero if its
    /// DAC is off (a DAC that is off outputs 0, no DC offset) or NR51 does not route it,
    /// otherwise the NR50 master volume (1..=8) times the output scale.
    pub(super) fn mix_weights(&self) -> [[i32; 2]; 4] {
        let dac_on = [
            self.regs[reg::NR12] & 0xF8 != 0,
            self.regs[reg::NR22] & 0xF8 != 0,
            self.regs[reg::NR30] & 0x80 != 0,
            self.regs[reg::NR42] & 0xF8 != 0,
        ];
        let nr51 = self.regs[reg::NR51];
        let nr50 = self.regs[reg::NR50];
        let left = (i32::from((nr50 >> 4) & 7) + 1) * LEVEL_PER_DAC_STEP;
        let right = (i32::from(nr50 & 7) + 1) * LEVEL_PER_DAC_STEP;
        let mut weights = [[0i32; 2]; 4];
        for (channel, weight) in weights.iter_mut().enumerate() {
            if dac_on[channel] {
                *weight = [
                    left * i32::from(nr51 >> (channel + 4) & 1),
                    right * i32::from(nr51 >> channel & 1),
                ];
            }
        }
        weights
    }

    /// Each channel's digital output 0..=15 (0 while the channel is off).
    #[inline]
    pub(super) fn digital_outputs(&self) -> [u8; 4] {
        // Masks, not branches: which channels are on is anybody's guess.
        let on = |active: u8| 0u8.wrapping_sub(u8::from(active != 0));
        [
            square_output(&self.square1, self.regs[reg::NR11]) & on(self.square1.active),
            square_output(&self.square2, self.regs[reg::NR21]) & on(self.square2.active),
            wave_output(&self.wave, self.regs[reg::NR32]) & on(self.wave.active),
            noise_output(&self.noise) & on(self.noise.active),
        ]
    }
}

/// T-cycles per duty step for an 11-bit frequency.
pub(super) fn square_period(frequency: u16) -> u32 {
    (2048 - u32::from(frequency & 0x7FF)) * 4
}

/// T-cycles per wave sample for an 11-bit frequency.
pub(super) fn wave_period(frequency: u16) -> u32 {
    (2048 - u32::from(frequency & 0x7FF)) * 2
}

/// T-cycles per LFSR shift for NR43 (divisor code 0 acts as 0.5: Pan Docs "Noise channel").
pub(super) fn noise_period(nr43: u8) -> u32 {
    let divisor = match nr43 & 7 {
        0 => 8,
        code => u32::from(code) * 16,
    };
    divisor << (nr43 >> 4).min(13)
}

/// Runs the noise channel's events that come before `until` T-cycles from now (another
/// channel's next event or the end of the run) and returns the T-cycles they took, and its
/// digital output and the mixer's level (given as they are now) afterwards. Out of line,
/// with few values live, so that the loop over its changes (often several per output
/// sample) keeps them all in registers; in and out by value, so that the caller's copies
/// stay in registers too (a pair written as two words and read as one stalls the load).
#[inline(never)]
pub(super) fn run_noise_until(
    noise: &mut ToneState,
    synth: &mut blip::Steps,
    until: u32,
    nr43: u8,
    weight: [i32; 2],
    digital: u8,
    level: [i32; 2],
) -> (u32, u8, [i32; 2]) {
    let period = noise_period(nr43);
    let volume = noise.volume & 15;
    let (mut output, mut now) = (digital, level);
    let mut elapsed = 0;
    loop {
        let timer = noise.timer.max(1);
        if elapsed + timer >= until {
            noise.timer = timer;
            break;
        }
        if nr43 & 0x08 == 0 {
            // 15-bit mode: the outputs after the next n <= 14 shifts are bits 1..=n of the
            // register now (inverted), and the 14 after those bits 1..=14 of the register
            // 14 shifts on, and so on: only the changes between them need visiting, up to
            // `TRAIN_SHIFTS` at once.
            let span = until - 1 - elapsed - timer;
            let shifts = if span >= (TRAIN_SHIFTS - 1) * period {
                TRAIN_SHIFTS
            } else {
                1 + span / period
            };
            // The register 14, 28 and 42 shifts on (the later ones only if needed).
            let after_14 = shift_lfsr_15_bit(noise.lfsr, 14);
            let (after_28, after_42) = if shifts > 28 {
                let after_28 = shift_lfsr_15_bit(after_14, 14);
                (after_28, shift_lfsr_15_bit(after_28, 14))
            } else {
                (0, 0)
            };
            // Bit k: the register's bit 0 after k shifts, k = 0..=56.
            let bits = u64::from(noise.lfsr) & 0x7FFF
                | (u64::from(after_14) & 0x7FFE) << 14
                | (u64::from(after_28) & 0x7FFE) << 28
                | (u64::from(after_42) & 0x7FFE) << 42;
            let mut changes = (bits ^ (bits >> 1)) & ((1 << shifts) - 1);
            // The register's output before the first shift is bit 0; `output` already
            // holds it.
            let last = elapsed + timer + (shifts - 1) * period;
            if weight[0] == weight[1] && changes != 0 {
                // Routed both ways at equal volume, as usual: the output toggles between
                // `volume` and 0 at each change.
                let next = if bits >> (changes.trailing_zeros() + 1) & 1 == 0 {
                    volume
                } else {
                    0
                };
                let delta = weight[0] * 2 * (i32::from(next) - i32::from(output));
                synth.alternating_centre_changes(timer, period, changes, delta, last - elapsed);
                let final_index = 63 - changes.leading_zeros();
                let final_output = if bits >> (final_index + 1) & 1 == 0 {
                    volume
                } else {
                    0
                };
                let change = weight[0] * 2 * (i32::from(final_output) - i32::from(output));
                now[0] += change;
                now[1] += change;
                output = final_output;
            } else {
                let mut position = elapsed;
                while changes != 0 {
                    let index = changes.trailing_zeros(); // shift index + 1 = bit
                    changes &= changes - 1;
                    let when = elapsed + timer + index * period;
                    synth.advance(when - position);
                    position = when;
                    let next = if bits >> (index + 1) & 1 == 0 {
                        volume
                    } else {
                        0
                    };
                    let change = 2 * (i32::from(next) - i32::from(output));
                    now[0] += weight[0] * change;
                    now[1] += weight[1] * change;
                    output = next;
                    synth.set_level(now);
                }
                synth.advance(last - position);
            }
            elapsed = last;
            noise.lfsr = match shifts {
                ..=14 => shift_lfsr_15_bit(noise.lfsr, shifts),
                15..=28 => shift_lfsr_15_bit(after_14, shifts - 14),
                29..=42 => shift_lfsr_15_bit(after_28, shifts - 28),
                _ => shift_lfsr_15_bit(after_42, shifts - 42),
            };
        } else {
            elapsed += timer;
            synth.advance(timer);
            shift_lfsr(noise, nr43);
            let next = noise_output(noise);
            if next != output {
                let change = 2 * (i32::from(next) - i32::from(output));
                now[0] += weight[0] * change;
                now[1] += weight[1] * change;
                output = next;
                synth.set_level(now);
            }
        }
        noise.timer = period;
    }
    (elapsed, output, now)
}

/// A train of the noise channel's 15-bit LFSR shifts (up to `TRAIN_SHIFTS`, as in
/// [`run_noise_until`]), worked out once and taken in parts as the other channels' changes
/// cut into it: a square or wave change no longer ends the train and makes the next one be
/// worked out again. Every change still reaches the synthesizer as its own step, in time
/// order, and a change at the T-cycle of another channel's joins that one's step, as in
/// `run`'s plain loop.
#[derive(Clone, Copy)]
struct NoiseTrain {
    /// Bit n: the register's bit 0 after n shifts of the train (n = 0..=`TRAIN_SHIFTS`).
    /// The register after n shifts is bits n..n + 15, as far as they reach.
    bits: u64,
    /// The register before the train.
    lfsr: u16,
    /// T-cycles from the start of the run to the train's first shift.
    first: u32,
    /// Shifts in the train.
    shifts: u32,
    /// Shifts taken so far: their changes have gone to the synthesizer (or to the step of
    /// the moment they came at).
    taken: u32,
}

impl NoiseTrain {
    /// No shifts (a channel that runs no train).
    const EMPTY: NoiseTrain = NoiseTrain {
        bits: 0,
        lfsr: 0,
        first: 0,
        shifts: 0,
        taken: 0,
    };

    /// The shifts from the register `lfsr`, the first one `first` T-cycles after the start
    /// of the run, every `period` on, up to `end` (the run's length; at most
    /// `TRAIN_SHIFTS`).
    #[inline]
    fn new(lfsr: u16, first: u32, end: u32, period: u32) -> NoiseTrain {
        let shifts = if first > end {
            0
        } else if end - first >= (TRAIN_SHIFTS - 1) * period {
            TRAIN_SHIFTS
        } else {
            1 + (end - first) / period
        };
        // Bit 0 after n + 15 shifts is what shift n + 1 fed back: bit 0 XOR bit 1 after n
        // shifts. So the bits 15 on, 14 at a time, come from the 15 before them in a few
        // whole-word steps, not a shift of the register per 14 shifts.
        const FED_BACK: u64 = 0x3FFF;
        let mut bits = u64::from(lfsr) & 0x7FFF;
        bits |= ((bits ^ bits >> 1) & FED_BACK) << 15;
        bits |= ((bits ^ bits >> 1) & FED_BACK << 14) << 15;
        bits |= ((bits ^ bits >> 1) & FED_BACK << 28) << 15;
        const _: () = assert!(TRAIN_SHIFTS == 56);
        NoiseTrain {
            bits,
            lfsr,
            first,
            shifts,
            taken: 0,
        }
    }

    /// The register after `n` (at most `shifts`) shifts of the train.
    #[inline]
    fn lfsr_after(&self, n: u32) -> u16 {
        // (The register's bit 15, which no shift keeps, stays only with no shift taken.)
        match n {
            0 => self.lfsr,
            1..=42 => (self.bits >> n) as u16 & 0x7FFF,
            _ => shift_lfsr_15_bit((self.bits >> 42) as u16 & 0x7FFF, n - 42),
        }
    }

    /// The channel's digital output after `n` shifts of the train.
    #[inline]
    fn output_after(&self, n: u32, volume: u32) -> u8 {
        (volume & ((self.bits >> n) as u32 & 1).wrapping_sub(1)) as u8
    }

    /// Takes the shifts before `at` (T-cycles from the start of the run; the synthesizer is
    /// at `now`): their changes go to `synth` as trains of centre steps of `weight` per
    /// unit. Later trains are worked out as this one runs out, up to `end`. Returns the
    /// T-cycles the synthesizer moved on (to the last shift taken, before `at`), the
    /// channel's output after a shift at `at` itself (the caller sends that change with the
    /// other channels'), and its output and the mixer's level just before `at`.
    /// `[period, volume]`: the channel's.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn take(
        &mut self,
        synth: &mut blip::Steps,
        now: u32,
        at: u32,
        end: u32,
        [period, volume]: [u32; 2],
        weight: i32,
        mut output: u8,
        mut level: [i32; 2],
    ) -> (u32, u8, u8, [i32; 2]) {
        let mut synth_at = now;
        loop {
            // The train's shifts before `at`.
            let before = if at > self.first {
                (at - self.first).div_ceil(period).min(self.shifts)
            } else {
                0
            };
            if before > self.taken {
                // Bit i: the output changes at shift `taken + 1 + i`.
                let changes = (self.bits ^ (self.bits >> 1)) >> self.taken
                    & ((1 << (before - self.taken)) - 1);
                if changes != 0 {
                    let first_change = self.taken + 1 + changes.trailing_zeros();
                    let next = self.output_after(first_change, volume);
                    let delta = weight * 2 * (i32::from(next) - i32::from(output));
                    // From the synthesizer's present to the first of them and to the last
                    // shift taken (at or after the last of them, before `at`).
                    let first = self.first + self.taken * period - synth_at;
                    let last_shift = self.first + (before - 1) * period;
                    synth.alternating_centre_changes(
                        first,
                        period,
                        changes,
                        delta,
                        last_shift - synth_at,
                    );
                    synth_at = last_shift;
                    let last = self.output_after(before, volume);
                    let change = weight * 2 * (i32::from(last) - i32::from(output));
                    level[0] += change;
                    level[1] += change;
                    output = last;
                }
                self.taken = before;
            }
            if self.taken < self.shifts {
                break;
            }
            // Run out: the next train, if it starts by `at`.
            let next_first = self.first + self.shifts * period;
            if next_first > at {
                break;
            }
            *self = NoiseTrain::new(self.lfsr_after(self.shifts), next_first, end, period);
        }
        // A shift at `at` itself.
        let mut at_step = output;
        if self.taken < self.shifts && self.first + self.taken * period == at {
            self.taken += 1;
            at_step = self.output_after(self.taken, volume);
        }
        (synth_at - now, at_step, output, level)
    }
}

/// The most 15-bit LFSR shifts [`run_noise_until`] takes in one train (four times 14, the
/// most one register value gives in closed form, as one 64-bit mask of changes).
const TRAIN_SHIFTS: u32 = 56;
const _: () = assert!(TRAIN_SHIFTS as usize <= blip::TRAIN_CHANGES);

/// The wave channel `t_cycles` on (sample reads every `period`), without looking at its
/// output.
pub(super) fn wave_after(
    mut wave: WaveState,
    wave_ram: &[u8; 16],
    period: u32,
    t_cycles: u64,
) -> WaveState {
    let timer = u64::from(wave.timer.max(1));
    if t_cycles < timer {
        wave.timer = (timer - t_cycles) as u32;
        wave.t_cycles_since_read = since_read_after(
            wave.t_cycles_since_read,
            t_cycles.min(u64::from(u32::MAX)) as u32,
        );
        return wave;
    }
    let after_first = t_cycles - timer;
    // In 32 bits when it fits (always, in a run): a 64-bit division is far slower.
    let (reads, since_last) = match u32::try_from(after_first) {
        Ok(after_first) => (
            u64::from(1 + after_first / period),
            u64::from(after_first % period),
        ),
        Err(_) => (
            1 + after_first / u64::from(period),
            after_first % u64::from(period),
        ),
    };
    let period = u64::from(period);
    wave.position = ((u64::from(wave.position) + reads) & 31) as u8;
    wave.sample_buffer = wave_ram[usize::from(wave.position >> 1)];
    wave.t_cycles_since_read = wave.t_cycles_since_read & !SINCE_READ_BITS
        | since_last.min(u64::from(SINCE_READ_CAP_T_CYCLES)) as u32;
    wave.timer = (period - since_last) as u32;
    wave
}

/// T-cycles from now to the next sample read that changes the wave channel's output
/// (`u32::MAX` if none ever does: wave RAM holds one level, as NR32 shifts it), and the
/// reads up to and including that one.
#[inline]
pub(super) fn next_wave_change(
    wave: &WaveState,
    wave_ram: &[u8; 16],
    nr32: u8,
    period: u32,
) -> (u32, u32) {
    const NIBBLE_LOW_BITS: u128 = u128::MAX / 15; // 0x1111...1
    let now = wave_output(wave, nr32);
    let shift = match (nr32 >> 5) & 3 {
        0 => return (u32::MAX, 0), // Muted: the output stays 0.
        code => code - 1,
    };
    // All 32 samples as NR32 shifts them, one per nibble, sample 0 in the top nibble.
    let samples = (u128::from_be_bytes(*wave_ram) >> shift) & (NIBBLE_LOW_BITS * (15 >> shift));
    // A nibble of `other` is non-zero where that sample differs from the output now; fold
    // each down to its lowest bit.
    let other = samples ^ (NIBBLE_LOW_BITS * u128::from(now));
    let other = (other | other >> 1 | other >> 2 | other >> 3) & NIBBLE_LOW_BITS;
    // The sample the next read takes to the top nibble, the ones after it below.
    let next = u32::from(wave.position.wrapping_add(1) & 31);
    let ahead = other.rotate_left(4 * next);
    if ahead == 0 {
        return (u32::MAX, 0);
    }
    let later = (ahead.leading_zeros() - 3) / 4;
    (wave.timer.max(1).saturating_add(later * period), later + 1)
}

/// T-cycles from now to the next duty step at which a square channel's output changes, and
/// the duty steps up to and including that one.
#[inline]
pub(super) fn next_square_change(tone: &ToneState, nrx1: u8, period: u32) -> (u32, u32) {
    let duty = DUTY_PATTERNS[usize::from(nrx1 >> 6)];
    let position = u32::from(tone.position & 7);
    // Bit j: the duty bit j + 1 steps on.
    let ahead = duty.rotate_right((position + 1) & 7);
    let changed = if square_level(tone, duty) != 0 {
        !ahead
    } else {
        ahead
    };
    // Every pattern has both levels, so some step within 8 changes it. (Saturating: only
    // a hand-made state has a timer that far out, and then no change falls in this run.)
    let later = changed.trailing_zeros();
    (tone.timer.max(1).saturating_add(later * period), later + 1)
}

/// Advances a square channel's timer by `step` (never past its next event); true if the duty
/// step moved. (`run` moves squares from one output change to the next in closed form.)
#[cfg(test)]
pub(super) fn step_square(tone: &mut ToneState, step: u32, period: u32) -> bool {
    tone.timer = tone.timer.max(1) - step;
    if tone.timer == 0 {
        tone.timer = period;
        tone.position = (tone.position + 1) & 7;
        true
    } else {
        false
    }
}

/// A square channel's digital output for its duty step and volume (NRx1 holds the duty).
#[inline]
pub(super) fn square_output(tone: &ToneState, nrx1: u8) -> u8 {
    let duty = DUTY_PATTERNS[usize::from(nrx1 >> 6)];
    // The volume where the level is 1, else 0 (a mask, not a branch).
    tone.volume & 15 & 0u8.wrapping_sub(square_level(tone, duty))
}

/// A square's output level now, 0 or 1: its duty pattern's bit at its step, or the level a
/// duty change left held, and 0 during a trigger's start-up delay (masks, not branches).
#[inline]
pub(super) fn square_level(tone: &ToneState, duty: u8) -> u8 {
    let position = tone.position;
    let held = position >> 4 & 1;
    let pattern = duty >> (position & 7) & 1;
    let level = (pattern & !held) | (position >> SQUARE_HELD_LEVEL_SHIFT & held);
    level & 1 & !(position >> 3 & 1)
}

/// An NRx1 write's duty side: the level already out stays until the next duty step.
pub(super) fn hold_square_level(tone: &mut ToneState, old_nrx1: u8) {
    let level = square_level(tone, DUTY_PATTERNS[usize::from(old_nrx1 >> 6)]);
    tone.position = tone.position & (7 | SQUARE_SILENT_UNTIL_STEP | SQUARE_NOT_STEPPED)
        | SQUARE_DUTY_HELD
        | level << SQUARE_HELD_LEVEL_SHIFT;
}

/// The wave channel's digital output: the current nibble of its sample buffer, shifted by
/// NR32's output level (mute, 100%, 50%, 25%).
#[inline]
pub(super) fn wave_output(wave: &WaveState, nr32: u8) -> u8 {
    // High nibble at even positions; then NR32's shift, 4 for mute (shifts, not branches).
    let nibble = wave.sample_buffer >> ((!wave.position & 1) << 2) & 15;
    const LEVEL_SHIFT: [u8; 4] = [4, 0, 1, 2];
    nibble >> LEVEL_SHIFT[usize::from((nr32 >> 5) & 3)]
}

/// The noise channel's digital output: its volume while the LFSR's bit 0 is clear.
#[inline]
pub(super) fn noise_output(noise: &ToneState) -> u8 {
    // The volume while bit 0 is clear, else 0 (a mask, not a branch).
    noise.volume & 15 & (noise.lfsr as u8 & 1).wrapping_sub(1)
}

/// One LFSR shift: bit 0 XOR bit 1 feeds bit 14, and bit 6 too in 7-bit mode (NR43 bit 3).
#[inline]
pub(super) fn shift_lfsr(noise: &mut ToneState, nr43: u8) {
    let feedback = (noise.lfsr ^ (noise.lfsr >> 1)) & 1;
    noise.lfsr = (noise.lfsr >> 1) & 0x3FFF | feedback << 14;
    if nr43 & 0x08 != 0 {
        noise.lfsr = noise.lfsr & !0x40 | feedback << 6;
    }
}

/// Moves a square channel `t_cycles` on without looking at its output.
pub(super) fn skip_square(tone: &mut ToneState, t_cycles: u32, period: u32) {
    let timer = tone.timer.max(1);
    if t_cycles < timer {
        tone.timer = timer - t_cycles;
        return;
    }
    let after_first = t_cycles - timer;
    let steps = 1 + after_first / period;
    tone.position = ((u32::from(tone.position) + steps) & 7) as u8;
    tone.timer = period - after_first % period;
}

/// Moves the noise channel `t_cycles` on without looking at its output (the LFSR still
/// shifts: it decides what is heard later). Out of line: `run` calls it only for a noise
/// channel nobody hears, and its jump table code would otherwise sit among the hot loop's.
#[inline(never)]
pub(super) fn skip_noise(noise: &mut ToneState, t_cycles: u32, period: u32, nr43: u8) {
    let timer = noise.timer.max(1);
    if t_cycles < timer {
        noise.timer = timer - t_cycles;
        return;
    }
    let after_first = t_cycles - timer;
    let shifts = 1 + after_first / period;
    if nr43 & 0x08 == 0 {
        noise.lfsr = lfsr_15_bit_after(noise.lfsr, shifts);
    } else {
        for _ in 0..shifts {
            shift_lfsr(noise, nr43);
        }
    }
    noise.timer = period - after_first % period;
}

/// `shifts` (1..=14) shifts of the 15-bit LFSR at once. The bits fed back by the next 14
/// shifts are bit n XOR bit n+1 of the register as it is now, for n = 0..=13; they enter
/// at bit 14 in turn while the old bits move down.
pub(super) fn shift_lfsr_15_bit(lfsr: u16, shifts: u32) -> u16 {
    debug_assert!((1..=14).contains(&shifts));
    let bits = u32::from(lfsr);
    let feedback = (bits ^ (bits >> 1)) & ((1 << shifts) - 1);
    let kept = (bits >> shifts) & ((1 << (15 - shifts)) - 1);
    (kept | feedback << (15 - shifts)) as u16
}

#[cfg(test)]
mod train_tests {
    use super::*;

    /// A train's bits and registers are those of single shifts, from every register (bit 15
    /// set too) and for every count of shifts.
    #[test]
    fn noise_trains_follow_single_shifts() {
        for start in (0..=u16::MAX).step_by(7) {
            let train = NoiseTrain::new(start, 1, TRAIN_SHIFTS * 8, 8);
            assert_eq!(train.shifts, TRAIN_SHIFTS);
            let mut noise = ToneState::zeroed();
            noise.lfsr = start;
            for n in 0..=TRAIN_SHIFTS {
                if n > 0 {
                    shift_lfsr(&mut noise, 0x00);
                }
                assert_eq!(train.lfsr_after(n), noise.lfsr, "{start:#06X} after {n}");
                let bit = (train.bits >> n) as u16 & 1;
                assert_eq!(bit, noise.lfsr & 1, "{start:#06X} bit {n}");
            }
        }
    }
}
