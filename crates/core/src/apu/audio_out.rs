//! [`AudioOut`]: finished samples waiting for the host.

use super::SAMPLE_RATE;

/// Finished 48 kHz stereo samples: host side, never read back by emulation.
#[derive(Clone, Debug)]
pub struct AudioOut {
    /// A ring, so that a host that never drains (`backspin bench`) costs no big moves when
    /// the oldest samples are dropped.
    samples: std::collections::VecDeque<i16>,
    /// Whether the APU makes samples at all (`set_synthesis`).
    synthesize: bool,
    /// Whether a flush may wait for the APU's next entry (`set_flush_deferral`).
    pub(super) defer_flushes: bool,
    /// Flushes owed: flush periods that have ended without their catch-up and samples
    /// (`ApuState::owe_flush`). Host side, as the run that owes them settles them before it
    /// hands the state back.
    pub(super) owed_flushes: u32,
    /// While flushes are owed: the APU cycles of the oldest owed period that the channels
    /// had been simulated for.
    pub(super) owed_from: u32,
}

/// If the host never drains, keep only about the last ten seconds.
pub(super) const MAX_BUFFERED_SAMPLES: usize = 2 * SAMPLE_RATE as usize * 10;

impl Default for AudioOut {
    fn default() -> AudioOut {
        AudioOut {
            samples: std::collections::VecDeque::with_capacity(16 * 1024),
            synthesize: true,
            defer_flushes: false,
            owed_flushes: 0,
            owed_from: 0,
        }
    }
}

impl AudioOut {
    /// Whether the APU synthesizes samples: [`FastPaths::audio_synthesis`], which the
    /// machine copies here for the run (the APU asks on every tick). Off, for a host that
    /// plays no sound (a bot, a benchmark; PyBoy's `sound_emulated=False`), no sample is
    /// made and the channels run in closed form. Emulation is unchanged: every byte of
    /// `State` but the synthesizer's (`hw.apu.synth`, left as it was while off) is as with
    /// synthesis on. Switched back on, sound resumes from the synthesizer's old state: at
    /// most a click.
    ///
    /// [`FastPaths::audio_synthesis`]: crate::FastPaths::audio_synthesis
    pub(crate) fn set_synthesis(&mut self, enabled: bool) {
        self.synthesize = enabled;
    }

    /// Whether a flush period's end may leave its catch-up and samples to the APU's next
    /// entry ([`FastPaths::deferred_flushes`], copied here for the run).
    ///
    /// [`FastPaths::deferred_flushes`]: crate::FastPaths::deferred_flushes
    pub(crate) fn set_flush_deferral(&mut self, enabled: bool) {
        debug_assert_eq!(self.owed_flushes, 0);
        self.defer_flushes = enabled;
    }

    /// Whether the APU synthesizes samples (`set_synthesis`).
    pub(crate) fn synthesizes(&self) -> bool {
        self.synthesize
    }

    /// Drain finished 48 kHz stereo samples (interleaved L,R i16) into `out`.
    pub fn drain_i16(&mut self, out: &mut Vec<i16>) {
        let (older, newer) = self.samples.as_slices();
        out.extend_from_slice(older);
        out.extend_from_slice(newer);
        self.samples.clear();
    }

    /// Drain finished samples as interleaved L,R `f32` in -1.0..=1.0 (host side only).
    pub fn drain_f32(&mut self, out: &mut Vec<f32>) {
        out.extend(self.samples.iter().map(|&s| f32::from(s) / 32768.0));
        self.samples.clear();
    }

    /// Stereo frames waiting to be drained.
    pub fn frames_available(&self) -> usize {
        self.samples.len() / 2
    }

    /// Drops everything not yet drained (e.g. after a rewind, whose audio is not wanted).
    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// Appends finished samples, interleaved L,R (an even count). A full buffer drops its
    /// older half first.
    pub(super) fn push_interleaved(&mut self, mut samples: &[i16]) {
        while !samples.is_empty() {
            if self.samples.len() >= MAX_BUFFERED_SAMPLES {
                self.samples.drain(..MAX_BUFFERED_SAMPLES / 2);
            }
            let room = MAX_BUFFERED_SAMPLES - self.samples.len();
            let (now, later) = samples.split_at(samples.len().min(room));
            self.samples.extend(now);
            samples = later;
        }
    }
}
