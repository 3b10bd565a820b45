//! The noise channel's clock: a free-running 14-bit counter whose bit `shift` (NR43 bits 4-7)
//! clocks the LFSR on each rising edge. The counter steps every `divisor` APU cycles (NR43
//! bits 0-2: code × 4, code 0 acting as 2 APU cycles) from the first trigger after power-on,
//! whether or not the channel is on, and a trigger does not reset it: it only reloads the
//! countdown to the next step. So the first shift after a trigger depends on where the
//! counter stood, and an NR43 write realigns the countdown if it lands just as the counter
//! stepped. The model is SameBoy's for CGB-D/E (apu.c, `prepare_noise_start`, `nr43_write` and
//! the counter loop of `GB_apu_run`); Pan Docs only gives the resulting frequency, so every
//! rule here is UNVERIFIED. Pinned by `probes/apu/noise_*`.
//!
//! The clock is kept in the noise channel's `ToneState::timer` between catch-ups (packed, see
//! [`NoiseClock::packed`]); during a catch-up that field holds the T-cycles to the next LFSR
//! shift, derived from the clock (`ApuState::run_pieces`): between register writes the shifts
//! come every `noise_period` T-cycles, so the channel loops need nothing else.

const COUNTER_MASK: u32 = 0x3FFF;
const COUNTDOWN_SHIFT: u32 = 14;
const COUNTDOWN_MASK: u32 = 0x3F;
const ALIGNMENT_SHIFT: u32 = 20;
const RUNNING: u32 = 1 << 22;
const STARTED_WITH_DAC_OFF: u32 = 1 << 23;
const DID_STEP: u32 = 1 << 24;
const RELOADED: u32 = 1 << 25;

/// The noise channel's clock, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NoiseClock {
    /// The 14-bit counter whose bit `shift` clocks the LFSR.
    counter: u32,
    /// APU cycles until the counter's next step (0 acts as a whole divisor).
    countdown: u32,
    /// 2 MHz APU cycles since the APU was powered on, modulo 4.
    alignment: u32,
    /// The counter runs: the channel has been triggered since power-on (and its DAC was not
    /// switched off mid-run with a divisor code other than 0).
    running: bool,
    /// The last trigger found the DAC off.
    started_with_dac_off: bool,
    /// The counter has stepped since the last trigger (or the trigger came in alignment 2).
    did_step: bool,
    /// The counter stepped in the last APU cycle caught up: the countdown has just reloaded.
    reloaded: bool,
}

/// What a trigger does to the LFSR besides resetting it.
pub(super) struct NoiseStart {
    /// The LFSR starts at SameBoy's 0x0055 (inverted: ours counts the other way) instead of
    /// all ones.
    pub odd_seed: bool,
    /// The LFSR shifts once at the trigger.
    pub instant_shift: bool,
}

/// APU cycles per counter step for NR43.
fn divisor(nr43: u8) -> u32 {
    match u32::from(nr43 & 7) {
        0 => 2,
        code => code * 4,
    }
}

impl NoiseClock {
    pub(super) fn from_packed(bits: u32) -> NoiseClock {
        NoiseClock {
            counter: bits & COUNTER_MASK,
            countdown: (bits >> COUNTDOWN_SHIFT) & COUNTDOWN_MASK,
            alignment: (bits >> ALIGNMENT_SHIFT) & 3,
            running: bits & RUNNING != 0,
            started_with_dac_off: bits & STARTED_WITH_DAC_OFF != 0,
            did_step: bits & DID_STEP != 0,
            reloaded: bits & RELOADED != 0,
        }
    }

    /// Bits 0-13 the counter, 14-19 the countdown, 20-21 the alignment, then the flags.
    pub(super) fn packed(self) -> u32 {
        (self.counter & COUNTER_MASK)
            | (self.countdown & COUNTDOWN_MASK) << COUNTDOWN_SHIFT
            | (self.alignment & 3) << ALIGNMENT_SHIFT
            | if self.running { RUNNING } else { 0 }
            | if self.started_with_dac_off {
                STARTED_WITH_DAC_OFF
            } else {
                0
            }
            | if self.did_step { DID_STEP } else { 0 }
            | if self.reloaded { RELOADED } else { 0 }
    }

    /// The clock `apu_cycles` 2 MHz APU cycles on (NR43 unchanged meanwhile).
    pub(super) fn advance(&mut self, apu_cycles: u32, nr43: u8) {
        self.alignment = (self.alignment + apu_cycles) & 3;
        if !self.running || apu_cycles == 0 {
            return;
        }
        let divisor = divisor(nr43);
        let countdown = if self.countdown == 0 {
            divisor
        } else {
            self.countdown
        };
        if apu_cycles < countdown {
            self.countdown = countdown - apu_cycles;
            self.reloaded = false;
            return;
        }
        let after_first = apu_cycles - countdown;
        self.counter = (self.counter + 1 + after_first / divisor) & COUNTER_MASK;
        self.did_step = true;
        let since_step = after_first % divisor;
        self.countdown = divisor - since_step;
        self.reloaded = since_step == 0;
    }

    /// T-cycles to the next LFSR shift: the next rising edge of the counter's bit `shift`
    /// (for shifts 0..=13; 14 and 15 look above the counter and never shift).
    pub(super) fn t_cycles_to_shift(&self, nr43: u8) -> u32 {
        let shift = u32::from(nr43 >> 4).min(13);
        let divisor = divisor(nr43);
        let countdown = if self.countdown == 0 {
            divisor
        } else {
            self.countdown
        };
        // The edge comes when the counter's low `shift + 1` bits read 1 followed by zeros.
        let cycle = 2 << shift;
        let steps = ((1 << shift) + cycle - (self.counter & (cycle - 1))) & (cycle - 1);
        let steps = if steps == 0 { cycle } else { steps };
        (countdown + (steps - 1) * divisor) * 2
    }

    /// A trigger (NR44 bit 7) with the channel `was_active`; NR42 and NR43 as written.
    pub(super) fn trigger(&mut self, nr42: u8, nr43: u8, was_active: bool) -> NoiseStart {
        let dac_on = nr42 & 0xF8 != 0;
        let was_started_with_dac_off = self.started_with_dac_off;
        self.started_with_dac_off = !dac_on;
        let was_running = self.running;
        self.running = true;
        let alignment = self.alignment & 3;
        let mut code = u32::from(nr43 & 7);
        let mut instant_shift = false;
        let mut code_1_glitch = false;
        // A step due in the APU cycle of the trigger still happens.
        if code > 1 && self.countdown == 1 {
            self.counter = (self.counter + 1) & COUNTER_MASK;
        } else if self.countdown == 2 && alignment == 0 && was_active {
            if code == 0 {
                code = 8;
            } else if code == 1 {
                code_1_glitch = !self.did_step;
                let bit = 1 << (nr43 >> 4);
                let old = self.counter & bit;
                self.counter = (self.counter + 1) & COUNTER_MASK;
                instant_shift = old == 0 && self.counter & bit != 0;
            }
        }
        // The countdown to the first step, by the divisor code and the 2 MHz alignment.
        let mut countdown = if code == 0 { 6 } else { code * 4 + 6 };
        if alignment & 1 != 0 {
            if code == 0 {
                countdown = if was_running {
                    countdown - 1
                } else {
                    countdown + 1
                };
            } else if alignment & 2 != 0 {
                if code == 1 && !was_active {
                    countdown += 1;
                } else {
                    countdown -= 3;
                }
            } else {
                countdown -= 1;
                if code == 1 && was_active {
                    countdown -= 4;
                }
            }
        } else if code != 0 {
            if alignment & 2 != 0 {
                countdown -= 2;
            } else if code > 1 || (was_active && nr43 & 0xF0 == 0) {
                countdown -= 4;
            }
        }
        // A counter that ran in the background (channel off) starts at its own distance.
        if code > 1 {
            if !dac_on && alignment == 0 {
                countdown += 4;
            }
        } else if was_running && !was_active && alignment == 0 {
            if code == 1 {
                countdown -= 4;
            } else if was_started_with_dac_off {
                countdown += 28;
            }
        }
        if code_1_glitch {
            countdown -= 4;
        }
        self.countdown = countdown;
        self.did_step = alignment == 2;
        NoiseStart {
            odd_seed: code == 0 && was_active && alignment == 3,
            instant_shift,
        }
    }

    /// NR42 switches the DAC off while the channel plays with divisor code `nr43 & 7` non-zero:
    /// a step due within an APU cycle still happens, then the counter stops (until the next
    /// trigger). With code 0 it keeps running.
    pub(super) fn dac_off(&mut self, was_active: bool, nr43: u8) {
        if was_active && nr43 & 7 != 0 {
            if self.countdown <= 2 {
                self.counter = (self.counter + 1) & COUNTER_MASK;
            }
            self.running = false;
        }
    }

    /// NR43 written from `old` to `new`: returns whether the LFSR shifts at once.
    ///
    /// Written just as the counter stepped, the countdown reloads for the new divisor, by the
    /// alignment. A new shift whose counter bit is set where the old one's was clear is a
    /// rising edge and shifts the LFSR. A new shift whose bit reads the same as the old one's
    /// shifts it too if, on its way, the register held an intermediate shift (the new bit 7
    /// with the old bits 4-6) whose bit differed: the glitch a write crossing shift 8 shows.
    /// When that lands at shift 8 or above with the bit set, SameBoy copies and masks LFSR
    /// bits by revision-specific tables instead (no shift here, not emulated), and with the
    /// bit clear, some pairs of shifts mask bits after the shift (not emulated either).
    pub(super) fn nr43_write(&mut self, old: u8, new: u8) -> bool {
        if self.reloaded {
            let divisor = divisor(new);
            self.countdown = if new & 7 == 0 {
                divisor
            } else {
                divisor + [2, 1, 0, 3][(self.alignment & 3) as usize]
            };
        }
        if (old ^ new) & 0xF0 == 0 {
            return false;
        }
        let bit = |shift: u8| (self.counter >> shift) & 1;
        let old_bit = bit(old >> 4);
        let new_bit = bit(new >> 4);
        let glitch_bit = bit(((old & 0x70) | (new & 0x80)) >> 4);
        if old_bit == new_bit && new_bit != glitch_bit {
            new_bit == 0 || new & 0x80 == 0
        } else {
            old_bit == 0 && new_bit != 0
        }
    }
}
