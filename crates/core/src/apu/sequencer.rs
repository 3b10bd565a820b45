//! What the frame sequencer clocks: square 1's frequency sweep, the length counters and the
//! volume envelopes.

use super::*;

impl ApuState {
    /// The sweep's next frequency; silences square 1 if it overflows 2047.
    pub(super) fn sweep_calculate(&mut self) -> u16 {
        let nr10 = self.regs[reg::NR10];
        let delta = self.sweep_shadow >> (nr10 & 7);
        let next = if nr10 & 0x08 != 0 {
            self.sweep_negated = 1;
            self.sweep_shadow.wrapping_sub(delta)
        } else {
            self.sweep_shadow.saturating_add(delta) // (a hand-made shadow may be huge)
        };
        if next > 2047 {
            self.square1.active = 0;
        }
        next
    }

    /// Frame sequencer steps 2 and 6 (128 Hz).
    pub(super) fn clock_sweep(&mut self) {
        self.sweep_timer = self.sweep_timer.saturating_sub(1);
        if self.sweep_timer != 0 {
            return;
        }
        let nr10 = self.regs[reg::NR10];
        let (period, shift) = ((nr10 >> 4) & 7, nr10 & 7);
        self.sweep_timer = if period == 0 { 8 } else { period };
        if self.sweep_enabled != 0 && period != 0 {
            let next = self.sweep_calculate();
            if next <= 2047 && shift != 0 {
                self.sweep_shadow = next;
                self.regs[reg::NR13] = next as u8;
                self.regs[reg::NR14] = self.regs[reg::NR14] & !7 | (next >> 8) as u8;
                // A second calculation with the new value, for its overflow check only.
                self.sweep_calculate();
            }
        }
    }

    /// Frame sequencer steps 0, 2, 4, 6 (256 Hz).
    pub(super) fn clock_lengths(&mut self) {
        let channels: [(&mut u16, &mut u8, u8); 4] = [
            (
                &mut self.square1.length,
                &mut self.square1.active,
                self.regs[reg::NR14],
            ),
            (
                &mut self.square2.length,
                &mut self.square2.active,
                self.regs[reg::NR24],
            ),
            (
                &mut self.wave.length,
                &mut self.wave.active,
                self.regs[reg::NR34],
            ),
            (
                &mut self.noise.length,
                &mut self.noise.active,
                self.regs[reg::NR44],
            ),
        ];
        for (length, active, nrx4) in channels {
            if nrx4 & 0x40 != 0 && *length != 0 {
                *length -= 1;
                if *length == 0 {
                    *active = 0;
                }
            }
        }
    }
}

/// The part of a trigger that squares and noise share.
pub(super) fn trigger_tone(tone: &mut ToneState, nrx2: u8, period: u32) {
    // APPROX: the DMG delays a square's first step after a trigger by a few cycles and keeps
    // the low bits of its timer; only audio timing depends on it, no test ROM here does.
    tone.timer = period;
    tone.volume = nrx2 >> 4;
    tone.envelope_timer = envelope_period(nrx2);
    tone.envelope_running = 1;
    tone.active = u8::from(nrx2 & 0xF8 != 0);
}

pub(super) fn envelope_period(nrx2: u8) -> u8 {
    match nrx2 & 7 {
        0 => 8,
        period => period,
    }
}

/// Frame sequencer step 7 (64 Hz).
pub(super) fn clock_envelope(tone: &mut ToneState, nrx2: u8) {
    if nrx2 & 7 == 0 || tone.envelope_running == 0 || tone.active == 0 {
        return;
    }
    tone.envelope_timer = tone.envelope_timer.saturating_sub(1);
    if tone.envelope_timer != 0 {
        return;
    }
    tone.envelope_timer = envelope_period(nrx2);
    let volume = tone.volume & 15;
    if nrx2 & 0x08 != 0 && volume < 15 {
        tone.volume = volume + 1;
    } else if nrx2 & 0x08 == 0 && volume > 0 {
        tone.volume = volume - 1;
    } else {
        tone.envelope_running = 0;
    }
}

/// An NRx2 write to a square or noise channel.
pub(super) fn write_envelope(tone: &mut ToneState, old: u8, value: u8) {
    if value & 0xF8 == 0 {
        tone.active = 0; // The DAC is off, and so is the channel.
        return;
    }
    if tone.active == 0 {
        return;
    }
    // "Zombie mode": a write while the channel plays nudges the volume without a trigger
    // (Pan Docs "Obscure behavior"). UNVERIFIED on DMG, where SameBoy notes some variants are
    // non-deterministic; no test ROM here covers it.
    let mut volume = tone.volume & 15;
    if old & 7 == 0 && tone.envelope_running != 0 {
        volume += 1;
    } else if old & 0x08 == 0 {
        volume += 2;
    }
    if (old ^ value) & 0x08 != 0 {
        volume = 16u8.wrapping_sub(volume);
    }
    tone.volume = volume & 15;
}
