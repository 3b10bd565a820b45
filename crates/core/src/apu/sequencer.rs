//! What the frame sequencer clocks: the length counters and the volume envelopes (square
//! 1's frequency sweep is in `sweep`).

use super::*;

impl ApuState {
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

/// A square's output is worked out anew (from its duty pattern) when its volume changes.
/// (The noise channel's `position` is 0 and stays so.)
pub(super) fn release_held_level(tone: &mut ToneState) {
    tone.position &= 7 | SQUARE_SILENT_UNTIL_STEP;
}

/// The part of a trigger that squares and noise share.
pub(super) fn trigger_tone(tone: &mut ToneState, nrx2: u8, period: u32) {
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

/// In `ToneState::envelope_timer`: the envelope's period has run out and it steps at the next
/// frame sequencer step 7 (bits 0-3 hold the periods left until then).
pub(super) const ENVELOPE_ARMED: u8 = 0x80;

/// Frame sequencer step 6: the envelope's period counts down, and when it runs out the
/// envelope arms for step 7. The count and the step are two events apart, so a trigger
/// between them (which reloads the period and disarms) waits a whole period more (SameBoy's
/// `volume_countdown` and `envelope_clock`; UNVERIFIED, Pan Docs only says the envelope steps
/// at step 7). Pinned by `probes/apu/env_trigger_late`.
pub(super) fn count_envelope(tone: &mut ToneState, nrx2: u8) {
    let armed = tone.envelope_timer & ENVELOPE_ARMED != 0;
    if nrx2 & 7 == 0 || tone.envelope_running == 0 || tone.active == 0 || armed {
        return;
    }
    let periods = (tone.envelope_timer & 0x0F).saturating_sub(1);
    tone.envelope_timer = if periods == 0 {
        ENVELOPE_ARMED
    } else {
        periods
    };
}

/// In `ToneState::envelope_timer` (bits 4-5, with `ENVELOPE_ARMED`): step 7 has come at CGB
/// double speed, and the envelope steps this many APU cycles after the event's M-cycle
/// (`ApuState::div_apu_event_double_speed`).
pub(super) const ENVELOPE_DUE_SHIFT: u8 = 4;
const ENVELOPE_DUE_MASK: u8 = 3 << ENVELOPE_DUE_SHIFT;
/// The machine calls the event before the M-cycle's APU cycle: the step lands in the next
/// M-cycle, two APU cycles on.
const ENVELOPE_DELAY_APU_CYCLES: u8 = 2;

/// Step 7 at double speed: an armed envelope steps two APU cycles later.
pub(super) fn make_envelope_due(tone: &mut ToneState, _nrx2: u8) {
    if tone.envelope_timer & ENVELOPE_ARMED != 0 {
        tone.envelope_timer = tone.envelope_timer & !ENVELOPE_DUE_MASK
            | ENVELOPE_DELAY_APU_CYCLES << ENVELOPE_DUE_SHIFT;
    }
}

/// APU cycles until a delayed envelope step (0: none due).
pub(super) fn envelope_due(tone: &ToneState) -> u8 {
    if tone.envelope_timer & ENVELOPE_ARMED == 0 {
        return 0;
    }
    (tone.envelope_timer & ENVELOPE_DUE_MASK) >> ENVELOPE_DUE_SHIFT
}

/// A delayed envelope step `apu_cycles` (fewer than its countdown) closer.
pub(super) fn bring_envelope_due(tone: &mut ToneState, apu_cycles: u8) {
    let due = envelope_due(tone);
    if due != 0 {
        tone.envelope_timer =
            tone.envelope_timer & !ENVELOPE_DUE_MASK | (due - apu_cycles) << ENVELOPE_DUE_SHIFT;
    }
}

/// Frame sequencer step 7 (64 Hz): an armed envelope steps and reloads its period.
pub(super) fn clock_envelope(tone: &mut ToneState, nrx2: u8) {
    if tone.envelope_timer & ENVELOPE_ARMED == 0 {
        return;
    }
    tone.envelope_timer = envelope_period(nrx2);
    if nrx2 & 7 == 0 || tone.envelope_running == 0 || tone.active == 0 {
        return;
    }
    let volume = tone.volume & 15;
    release_held_level(tone);
    if nrx2 & 0x08 != 0 && volume < 15 {
        tone.volume = volume + 1;
    } else if nrx2 & 0x08 == 0 && volume > 0 {
        tone.volume = volume - 1;
    } else {
        tone.envelope_running = 0;
    }
}

/// An NRx2 write to a square or noise channel.
pub(super) fn write_envelope(tone: &mut ToneState, old: u8, value: u8, cgb: bool) {
    if value & 0xF8 == 0 {
        tone.active = 0; // The DAC is off, and so is the channel.
        return;
    }
    if tone.active == 0 {
        return;
    }
    // "Zombie mode": a write while the channel plays nudges the volume without a trigger
    // (Pan Docs "Obscure behavior").
    let volume = tone.volume & 15;
    release_held_level(tone);
    tone.volume = if cgb {
        zombie_volume_cgb(volume, old, value, tone.envelope_running == 0)
    } else {
        zombie_volume_dmg(volume, old, value, tone.envelope_running != 0)
    };
}

/// The DMG's zombie step, as Pan Docs describes it. UNVERIFIED: SameBoy notes that some
/// variants are non-deterministic on a DMG; no test ROM here covers it.
fn zombie_volume_dmg(volume: u8, old: u8, value: u8, envelope_running: bool) -> u8 {
    let mut volume = volume;
    if old & 7 == 0 && envelope_running {
        volume += 1;
    } else if old & 0x08 == 0 {
        volume += 2;
    }
    if (old ^ value) & 0x08 != 0 {
        volume = 16u8.wrapping_sub(volume);
    }
    volume & 15
}

/// The CGB's zombie step (CGB-D/E as SameBoy has it; UNVERIFIED, Pan Docs gives only the
/// DMG's rule): a write that starts an envelope (period 0 to non-zero) clocks it once in the
/// new direction; a direction change reflects the volume (to 16 - v going down; going up to
/// 15 - v from a stopped envelope, else 14 - v, and then no clock). `stopped`: the envelope
/// has run into 0 or 15. Pinned by `probes/apu/sq1_zombie`.
fn zombie_volume_cgb(volume: u8, old: u8, value: u8, stopped: bool) -> u8 {
    let increasing = value & 0x08 != 0;
    let mut clock = value & 7 != 0 && old & 7 == 0 && !stopped;
    // Period 0, increasing, written over the same: the clock fires too.
    clock |= value & 0x0F == 0x08 && old & 0x0F == 0x08 && !stopped;
    let mut volume = volume;
    if (old ^ value) & 0x08 != 0 {
        volume = if !increasing {
            16u8.wrapping_sub(volume)
        } else if old & 7 == 0 && !stopped {
            volume ^ 15
        } else {
            14u8.wrapping_sub(volume)
        };
        clock &= !increasing;
    }
    if clock {
        volume = if increasing {
            volume.wrapping_add(1)
        } else {
            volume.wrapping_sub(1)
        };
    }
    volume & 15
}
