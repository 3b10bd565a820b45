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

    /// Whether the next length clock turns a channel off (a length counter at 1, enabled).
    pub(super) fn length_runs_out(&self) -> bool {
        [
            (self.square1.length, reg::NR14),
            (self.square2.length, reg::NR24),
            (self.wave.length, reg::NR34),
            (self.noise.length, reg::NR44),
        ]
        .into_iter()
        .any(|(length, nrx4)| length == 1 && self.regs[nrx4] & 0x40 != 0)
    }
}

/// A square's output is worked out anew (from its duty pattern) when its volume changes.
/// (The noise channel's `position` is 0 and stays so.)
pub(super) fn release_held_level(tone: &mut ToneState) {
    tone.position &= 7 | SQUARE_SILENT_UNTIL_STEP | SQUARE_NOT_STEPPED;
}

/// The part of a trigger that squares and noise share.
pub(super) fn trigger_tone(tone: &mut ToneState, nrx2: u8, period: u32) {
    tone.timer = period;
    tone.volume = nrx2 >> 4;
    tone.envelope_timer = nrx2 & ENVELOPE_COUNTDOWN;
    tone.envelope_running = 1;
    tone.active = u8::from(nrx2 & 0xF8 != 0);
}

/// In `ToneState::envelope_timer`, bits 0-2: the envelope's 3-bit period counter. It counts
/// down at every frame sequencer step 6 while the envelope is not armed, wrapping from 0 to 7
/// (whatever NRx2's period, so a period-0 envelope keeps counting), and reloads from NRx2
/// when it reaches 0 (SameBoy's `volume_countdown`; UNVERIFIED, Pan Docs only says the
/// envelope steps every `period` 64 Hz ticks). Pinned by `probes/apu/env_period0_count`.
pub(super) const ENVELOPE_COUNTDOWN: u8 = 7;

/// In `ToneState::envelope_timer`: when it armed, the envelope stood at its end (15 going up,
/// 0 going down), so its step locks it instead (SameBoy's `should_lock`).
const ENVELOPE_SHOULD_LOCK: u8 = 0x08;

/// In `ToneState::envelope_timer`: the envelope's period has run out and it steps at the next
/// frame sequencer step 7 (SameBoy's envelope `clock`).
pub(super) const ENVELOPE_ARMED: u8 = 0x80;

/// Frame sequencer step 6: the envelope's period counter counts down unless the envelope is
/// armed (SameBoy's `volume_countdown`, at its `div_divider` 7 event).
pub(super) fn count_envelope(tone: &mut ToneState) {
    if tone.envelope_timer & ENVELOPE_ARMED != 0 {
        return;
    }
    let countdown = (tone.envelope_timer & ENVELOPE_COUNTDOWN).wrapping_sub(1) & ENVELOPE_COUNTDOWN;
    tone.envelope_timer = tone.envelope_timer & !ENVELOPE_COUNTDOWN | countdown;
}

/// Arms the envelope for the next DIV-APU event if its period counter stands at 0: it reloads
/// from NRx2 and, with a period, arms, noting whether it stands at its end. On hardware this
/// happens at the rising edge of the DIV-APU bit halfway to that event (SameBoy's
/// `GB_apu_div_secondary_event`); it is done here right after the event before, and an NRx2
/// write in between undoes and redoes it (`write_envelope`). So after the count at step 6
/// reaches 0 the envelope steps at step 7, and an envelope whose counter stood at 0 when
/// NRx2 got a period arms at once and steps at the next event, whichever (UNVERIFIED, Pan
/// Docs only says the envelope steps every `period` 64 Hz ticks). Pinned by
/// `probes/apu/env_trigger_late` and `env_period0_count`.
pub(super) fn arm_envelope(tone: &mut ToneState, nrx2: u8) {
    let idle = tone.envelope_timer & (ENVELOPE_ARMED | ENVELOPE_COUNTDOWN) == 0;
    let period = nrx2 & ENVELOPE_COUNTDOWN;
    if !idle || tone.active == 0 || period == 0 {
        return;
    }
    let volume = tone.volume;
    let at_end = if nrx2 & 0x08 != 0 {
        volume == 15
    } else {
        volume == 0
    };
    tone.envelope_timer = period | ENVELOPE_ARMED | if at_end { ENVELOPE_SHOULD_LOCK } else { 0 };
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
pub(super) fn make_envelope_due(tone: &mut ToneState) {
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

/// Disarms the envelope; if it armed at its end, that locks it (SameBoy's envelope clock
/// falling: `locked |= should_lock`).
fn disarm_envelope(tone: &mut ToneState) {
    if tone.envelope_timer & ENVELOPE_SHOULD_LOCK != 0 {
        tone.envelope_running = 0;
    }
    tone.envelope_timer &= ENVELOPE_COUNTDOWN;
}

/// Frame sequencer step 7 (64 Hz): an armed envelope steps, unless it armed at its end, which
/// locks it for good (until a trigger). The step itself does not stop at 0 or 15: a zombie
/// write that turned the direction after the envelope armed at 15 going down takes it to 16
/// (SameBoy keeps the volume in a byte, and its PCM12/PCM34 show the carry: `read_pcm`;
/// UNVERIFIED, the documentation is silent). Pinned by `probes/apu/env_zombie_dir`.
pub(super) fn clock_envelope(tone: &mut ToneState, nrx2: u8) {
    if tone.envelope_timer & ENVELOPE_ARMED == 0 {
        return;
    }
    disarm_envelope(tone);
    if nrx2 & 7 == 0 || tone.envelope_running == 0 || tone.active == 0 {
        return;
    }
    release_held_level(tone);
    tone.volume = if nrx2 & 0x08 != 0 {
        tone.volume.wrapping_add(1)
    } else {
        tone.volume.wrapping_sub(1)
    };
}

/// An NRx2 write to a square or noise channel. `armed_for_real`: the DIV-APU bit is set, so
/// the rising edge at which an envelope arms has passed (`arm_envelope`); before it, an
/// armed envelope is only armed ahead of time, and the write arms it anew.
pub(super) fn write_envelope(
    tone: &mut ToneState,
    old: u8,
    value: u8,
    cgb: bool,
    armed_for_real: bool,
) {
    if value & 0xF8 == 0 {
        tone.active = 0; // The DAC is off, and so is the channel.
        return;
    }
    if tone.active == 0 {
        return;
    }
    let mut armed = tone.envelope_timer & ENVELOPE_ARMED != 0;
    let ahead = armed && !armed_for_real && envelope_due(tone) == 0;
    if ahead {
        tone.envelope_timer = 0;
        armed = false;
    }
    // An armed envelope takes the new period into its counter at once, and a period of 0
    // disarms it (SameBoy's `nrx2_glitch`; UNVERIFIED).
    if armed {
        tone.envelope_timer =
            tone.envelope_timer & !ENVELOPE_COUNTDOWN | value & ENVELOPE_COUNTDOWN;
    }
    // "Zombie mode": a write while the channel plays nudges the volume without a trigger
    // (Pan Docs "Obscure behavior").
    let volume = tone.volume;
    release_held_level(tone);
    let zombie = if cgb {
        zombie_volume_cgb(volume, old, value, tone.envelope_running == 0)
    } else {
        ZombieStep {
            volume: zombie_volume_dmg(volume & 15, old, value, tone.envelope_running != 0),
            clocked: false,
        }
    };
    tone.volume = zombie.volume;
    if armed && !zombie.clocked && value & 7 == 0 {
        disarm_envelope(tone);
    }
    if !armed_for_real {
        arm_envelope(tone, value);
    }
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

/// What a zombie write did to the volume.
struct ZombieStep {
    volume: u8,
    /// The write clocked the envelope (SameBoy's `should_tick`).
    clocked: bool,
}

/// The CGB's zombie step (CGB-D/E as SameBoy has it; UNVERIFIED, Pan Docs gives only the
/// DMG's rule): a write that starts an envelope (period 0 to non-zero) clocks it once in the
/// new direction; a direction change reflects the volume (to 16 - v going down; going up to
/// 15 - v from a stopped envelope, else 14 - v, and then no clock). `stopped`: the envelope
/// has locked at 0 or 15. A write that changes nothing leaves the volume as it was, even
/// beyond 15. Pinned by `probes/apu/sq1_zombie`.
fn zombie_volume_cgb(volume: u8, old: u8, value: u8, stopped: bool) -> ZombieStep {
    let increasing = value & 0x08 != 0;
    let mut clock = value & 7 != 0 && old & 7 == 0 && !stopped;
    // Period 0, increasing, written over the same: the clock fires too.
    clock |= value & 0x0F == 0x08 && old & 0x0F == 0x08 && !stopped;
    let invert = (old ^ value) & 0x08 != 0;
    if !invert && !clock {
        return ZombieStep {
            volume,
            clocked: false,
        };
    }
    let mut volume = volume & 15;
    if invert {
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
    ZombieStep {
        volume: volume & 15,
        clocked: clock,
    }
}
