//! Audio out through cpal, fed by the emulation thread through a shared sample ring.
//!
//! The core makes 48 kHz interleaved stereo. The emulation thread resamples it to the device
//! rate with a ratio nudged by at most ±0.5 % from how full the ring is (dynamic rate
//! control): emulation is paced by the wall clock at the true 59.7275 frames/s, and the small
//! pitch change absorbs the drift between that clock and the sound card's, so the ring
//! neither runs dry (crackle) nor grows (latency) over a long session.
//!
//! The device callback applies the volume and mute settings and fades: while the menu is
//! open ([`AudioSink::hold`]) the sound fades out over a few milliseconds and then plays
//! silence, and on closing it fades back in after a prefill of silence, so neither the stop
//! nor the underrun that would follow it clicks.
//!
//! Without a device (none present, `--no-audio`, or the stream failing later) the sink drops
//! samples and the game runs silent at the right speed; that is logged once. When a device
//! that worked goes away (a USB headset unplugged, the sound server restarted), the UI thread
//! tries the default device again every few seconds and hands the emulation thread a new
//! sink once one opens.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The core's output rate.
const SOURCE_RATE: f64 = 48_000.0;
/// How long a fade (the menu opening or closing, a volume change) takes.
const FADE_SECONDS: f32 = 0.01;
/// After an underrun the last sample dies away by this factor per output frame rather than
/// dropping to zero at once (which clicks).
const UNDERRUN_DECAY: f32 = 0.995;
/// The largest resampling-ratio change dynamic rate control applies.
const MAX_RATE_ADJUST: f64 = 0.005;
/// How often a lost device is looked for again.
const RECONNECT_INTERVAL: Duration = Duration::from_secs(3);

/// The sound settings that apply while playing, shared by the UI thread (the Settings
/// page), the emulation thread (the menu's hold) and the device callback; one set for the
/// whole session, whichever device is open.
#[derive(Debug)]
pub struct AudioControls {
    /// 0..=100.
    volume: AtomicU8,
    mute: AtomicBool,
    /// The menu is open: fade out and play silence.
    held: AtomicBool,
    /// The menu closed: play silence until the ring holds its target, then fade in.
    refilling: AtomicBool,
    /// How much sound the ring holds when all is well.
    latency_ms: AtomicU16,
}

impl AudioControls {
    pub fn new(volume: u8, mute: bool, latency_ms: u16) -> Arc<AudioControls> {
        Arc::new(AudioControls {
            volume: AtomicU8::new(volume.min(100)),
            mute: AtomicBool::new(mute),
            held: AtomicBool::new(false),
            refilling: AtomicBool::new(false),
            latency_ms: AtomicU16::new(latency_ms),
        })
    }

    pub fn set_volume(&self, volume: u8) {
        self.volume.store(volume.min(100), Ordering::Relaxed);
    }

    pub fn set_mute(&self, mute: bool) {
        self.mute.store(mute, Ordering::Relaxed);
    }

    pub fn set_latency_ms(&self, latency_ms: u16) {
        self.latency_ms.store(latency_ms, Ordering::Relaxed);
    }

    /// The gain the callback moves towards: loudness follows the square of the setting,
    /// so the steps of 10 % sound even.
    fn target_gain(&self) -> f32 {
        if self.held.load(Ordering::Relaxed)
            || self.refilling.load(Ordering::Relaxed)
            || self.mute.load(Ordering::Relaxed)
        {
            return 0.0;
        }
        let volume = f32::from(self.volume.load(Ordering::Relaxed)) / 100.0;
        volume * volume
    }

    /// Whether the sound is held (the menu) and waiting to refill (the menu closed).
    #[cfg(test)]
    pub fn hold_state(&self) -> (bool, bool) {
        (
            self.held.load(Ordering::Relaxed),
            self.refilling.load(Ordering::Relaxed),
        )
    }

    fn latency_seconds(&self) -> f64 {
        f64::from(self.latency_ms.load(Ordering::Relaxed)) / 1000.0
    }
}

struct Shared {
    /// Interleaved stereo f32 at the device rate.
    ring: Mutex<VecDeque<f32>>,
    /// Set when the stream reported an error: the device went away.
    dead: AtomicBool,
    controls: Arc<AudioControls>,
}

/// The device callback's state: the gain it plays at (moving towards the controls' target
/// by one fade's worth per frame) and the last sample (for a soft underrun).
struct Mixer {
    gain: f32,
    step: f32,
    last: [f32; 2],
    device_rate: f64,
}

impl Mixer {
    fn new(device_rate: f64) -> Mixer {
        Mixer {
            // Starts silent: the first sound fades in.
            gain: 0.0,
            step: 1.0 / (FADE_SECONDS * device_rate as f32),
            last: [0.0; 2],
            device_rate,
        }
    }

    /// Fills `out` (stereo pairs) from `ring` (`None`: it was busy, play what fades out).
    fn fill(
        &mut self,
        mut ring: Option<&mut VecDeque<f32>>,
        controls: &AudioControls,
        out: &mut [[f32; 2]],
    ) {
        let held = controls.held.load(Ordering::Relaxed);
        let mut refilling = controls.refilling.load(Ordering::Relaxed);
        let refilled = controls.latency_seconds() * self.device_rate * 2.0;
        if refilling
            && ring
                .as_ref()
                .is_some_and(|ring| ring.len() as f64 >= refilled)
        {
            controls.refilling.store(false, Ordering::Relaxed);
            refilling = false;
        }
        let target = controls.target_gain();
        for frame in out {
            self.gain = match self.gain < target {
                true => (self.gain + self.step).min(target),
                false => (self.gain - self.step).max(target),
            };
            let next = match ring.as_mut() {
                // Held and faded out: what is left is from before the menu opened.
                Some(ring) if held && self.gain == 0.0 => {
                    ring.clear();
                    None
                }
                // Faded out and filling up again: leave the ring to fill.
                Some(_) if refilling && self.gain == 0.0 => None,
                Some(ring) if ring.len() >= 2 => ring.pop_front().zip(ring.pop_front()),
                _ => None,
            };
            self.last = match next {
                Some((left, right)) => [left, right],
                None => self.last.map(|sample| sample * UNDERRUN_DECAY),
            };
            *frame = self.last.map(|sample| sample * self.gain);
        }
    }
}

/// The emulation thread's end: resamples and queues.
pub struct AudioSink {
    shared: Option<Arc<Shared>>,
    device_rate: f64,
    /// Position between the previous and the next source sample, 0..1.
    phase: f64,
    last: [f32; 2],
    reversed_scratch: Vec<i16>,
}

/// Keeps the cpal stream alive (it must stay on the thread that made it) and reopens the
/// default device after the one in use went away.
pub struct AudioOutput {
    stream: Option<cpal::Stream>,
    shared: Option<Arc<Shared>>,
    controls: Arc<AudioControls>,
    /// Set once a device has worked: only then is a lost one looked for again. With none at
    /// start there is nothing to wait for, and every attempt makes alsa-lib print noise.
    reconnect: bool,
    last_attempt: Instant,
}

impl AudioOutput {
    fn none(controls: Arc<AudioControls>) -> AudioOutput {
        AudioOutput {
            stream: None,
            shared: None,
            controls,
            reconnect: false,
            last_attempt: Instant::now(),
        }
    }

    /// The sound settings, to change while playing.
    pub fn controls(&self) -> &AudioControls {
        &self.controls
    }

    /// Call now and then from the UI thread. After the device died, tries the default
    /// device every `RECONNECT_INTERVAL`; returns the sink for the emulation thread once a
    /// stream opens.
    pub fn reconnect(&mut self) -> Option<AudioSink> {
        let dead = self
            .shared
            .as_ref()
            .is_none_or(|shared| shared.dead.load(Ordering::Relaxed));
        if !self.reconnect || !dead || self.last_attempt.elapsed() < RECONNECT_INTERVAL {
            return None;
        }
        self.last_attempt = Instant::now();
        // The dead stream goes first: some backends hold the device until it is dropped.
        self.stream = None;
        self.shared = None;
        match try_open(&self.controls) {
            Ok((sink, stream)) => {
                log::info!("audio device available again");
                self.shared = sink.shared.clone();
                self.stream = Some(stream);
                Some(sink)
            }
            Err(reason) => {
                log::debug!("audio still unavailable ({reason})");
                None
            }
        }
    }
}

impl AudioSink {
    /// A sink that drops everything.
    pub fn silent() -> AudioSink {
        AudioSink {
            shared: None,
            device_rate: SOURCE_RATE,
            phase: 0.0,
            last: [0.0; 2],
            reversed_scratch: Vec::new(),
        }
    }

    /// The menu opened (`true`: fade out and play silence) or closed: the sound comes back
    /// once the ring holds its target again (so it does not run dry at once), fading in.
    pub fn hold(&mut self, held: bool) {
        let Some(shared) = &self.shared else {
            return;
        };
        if held {
            shared.controls.held.store(true, Ordering::Relaxed);
            return;
        }
        let Ok(mut ring) = shared.ring.lock() else {
            return;
        };
        // Under the lock, so the callback sees both flags change together.
        ring.clear();
        shared.controls.refilling.store(true, Ordering::Relaxed);
        shared.controls.held.store(false, Ordering::Relaxed);
    }

    /// A sink on a ring no device reads, and its controls: for tests of what the emulation
    /// thread asks of the sound.
    #[cfg(test)]
    pub fn unplayed() -> (AudioSink, Arc<AudioControls>) {
        let controls = AudioControls::new(100, false, 50);
        let shared = Arc::new(Shared {
            ring: Mutex::new(VecDeque::new()),
            dead: AtomicBool::new(false),
            controls: controls.clone(),
        });
        let mut sink = AudioSink::silent();
        sink.shared = Some(shared);
        (sink, controls)
    }

    /// Queues one frame of 48 kHz interleaved stereo; `reversed` plays it backwards
    /// (rewind plays the sound of the frames it shows, in reverse).
    pub fn push(&mut self, samples: &[i16], reversed: bool) {
        let Some(shared) = self.shared.clone() else {
            return;
        };
        if shared.dead.load(Ordering::Relaxed) {
            self.shared = None;
            return;
        }
        let samples = if reversed {
            self.reversed_scratch.clear();
            self.reversed_scratch
                .extend(samples.chunks_exact(2).rev().flatten());
            std::mem::take(&mut self.reversed_scratch)
        } else {
            samples.to_vec()
        };
        let Ok(mut ring) = shared.ring.lock() else {
            return;
        };
        let target = shared.controls.latency_seconds() * self.device_rate * 2.0;
        let fill = ring.len() as f64;
        // Fuller than the target: consume the source faster (fewer output samples).
        let adjust = ((fill - target) / target).clamp(-1.0, 1.0) * MAX_RATE_ADJUST;
        let step = SOURCE_RATE / self.device_rate * (1.0 + adjust);
        // Far too full (the device stalled): drop the backlog instead of lagging behind.
        if fill > target * 4.0 {
            ring.clear();
        }
        for pair in samples.chunks_exact(2) {
            let next = [f32::from(pair[0]) / 32768.0, f32::from(pair[1]) / 32768.0];
            while self.phase < 1.0 {
                let t = self.phase as f32;
                ring.push_back(self.last[0] + (next[0] - self.last[0]) * t);
                ring.push_back(self.last[1] + (next[1] - self.last[1]) * t);
                self.phase += step;
            }
            self.phase -= 1.0;
            self.last = next;
        }
        drop(ring);
        if reversed {
            self.reversed_scratch = samples;
        }
    }
}

/// Opens the default output device, or returns a silent sink with one warning.
pub fn open(enabled: bool, controls: Arc<AudioControls>) -> (AudioSink, AudioOutput) {
    if !enabled {
        log::info!("audio off (--no-audio)");
        return (AudioSink::silent(), AudioOutput::none(controls));
    }
    match try_open(&controls) {
        Ok((sink, stream)) => {
            let output = AudioOutput {
                stream: Some(stream),
                shared: sink.shared.clone(),
                controls,
                reconnect: true,
                last_attempt: Instant::now(),
            };
            (sink, output)
        }
        Err(reason) => {
            log::warn!("no audio ({reason}); running silent at normal speed");
            (AudioSink::silent(), AudioOutput::none(controls))
        }
    }
}

fn try_open(controls: &Arc<AudioControls>) -> Result<(AudioSink, cpal::Stream), String> {
    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    let host = cpal::default_host();
    let device = host.default_output_device().ok_or("no output device")?;
    let config = device.default_output_config().map_err(|e| e.to_string())?;
    let channels = usize::from(config.channels());
    let device_rate = f64::from(config.sample_rate());
    let shared = Arc::new(Shared {
        ring: Mutex::new(VecDeque::with_capacity(48_000)),
        dead: AtomicBool::new(false),
        controls: controls.clone(),
    });
    let stream_config: cpal::StreamConfig = config.into();
    let stream = match config.sample_format() {
        cpal::SampleFormat::F32 => build::<f32>(&device, &stream_config, channels, &shared),
        cpal::SampleFormat::I16 => build::<i16>(&device, &stream_config, channels, &shared),
        cpal::SampleFormat::U16 => build::<u16>(&device, &stream_config, channels, &shared),
        cpal::SampleFormat::I32 => build::<i32>(&device, &stream_config, channels, &shared),
        other => return Err(format!("unsupported sample format {other:?}")),
    }
    .map_err(|e| e.to_string())?;
    stream.play().map_err(|e| e.to_string())?;
    log::info!("audio: {channels} channels at {device_rate} Hz");
    let sink = AudioSink {
        shared: Some(shared),
        device_rate,
        phase: 0.0,
        last: [0.0; 2],
        reversed_scratch: Vec::new(),
    };
    Ok((sink, stream))
}

fn build<T: cpal::SizedSample + cpal::FromSample<f32>>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    channels: usize,
    shared: &Arc<Shared>,
) -> Result<cpal::Stream, cpal::Error> {
    use cpal::traits::DeviceTrait;
    let reader = shared.clone();
    let error_flag = shared.clone();
    let mut mixer = Mixer::new(f64::from(config.sample_rate));
    // Mixed in blocks on the stack: the callback never allocates.
    let mut block = [[0.0f32; 2]; 256];
    device.build_output_stream(
        *config,
        move |out: &mut [T], _: &cpal::OutputCallbackInfo| {
            // Never wait on the emulation thread here: on contention, play what fades out.
            let mut ring = reader.ring.try_lock().ok();
            for frames in out.chunks_mut(channels * block.len()) {
                let mixed = &mut block[..frames.len() / channels];
                mixer.fill(ring.as_deref_mut(), &reader.controls, mixed);
                for (frame, [left, right]) in frames.chunks_mut(channels).zip(mixed.iter()) {
                    for (channel, sample) in frame.iter_mut().enumerate() {
                        let value = if channel % 2 == 0 { *left } else { *right };
                        *sample = T::from_sample(value);
                    }
                }
            }
        },
        move |error| {
            if !error_flag.dead.swap(true, Ordering::Relaxed) {
                log::warn!("audio device error ({error}); continuing without sound");
            }
        },
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink_at(rate: f64) -> (AudioSink, Arc<Shared>) {
        let shared = Arc::new(Shared {
            ring: Mutex::new(VecDeque::new()),
            dead: AtomicBool::new(false),
            controls: AudioControls::new(100, false, 50),
        });
        let sink = AudioSink {
            shared: Some(shared.clone()),
            device_rate: rate,
            phase: 0.0,
            last: [0.0; 2],
            reversed_scratch: Vec::new(),
        };
        (sink, shared)
    }

    #[test]
    fn rate_control_keeps_the_ring_near_its_target() {
        // A device clock 0.3 % slower than the emulated one: without control the ring would
        // grow by 0.3 % of the stream; with it, fill settles.
        let (mut sink, shared) = sink_at(44_100.0);
        let frame = vec![1000i16; 2 * 804];
        let consumed_per_frame = (44_100.0 * 0.997 / 59.7275) as usize * 2;
        for _ in 0..36_000 {
            sink.push(&frame, false);
            let mut ring = shared.ring.lock().unwrap();
            let take = consumed_per_frame.min(ring.len());
            ring.drain(..take);
        }
        let fill = shared.ring.lock().unwrap().len() as f64;
        let target = 0.05 * 44_100.0 * 2.0;
        assert!(
            fill < target * 2.0,
            "ring drifted to {fill} samples (target {target})"
        );
    }

    #[test]
    fn reversed_frames_play_backwards() {
        let (mut sink, shared) = sink_at(48_000.0);
        let ramp: Vec<i16> = (0..200).flat_map(|i| [i * 100, -i * 100]).collect();
        sink.push(&ramp, true);
        let ring = shared.ring.lock().unwrap();
        let left: Vec<f32> = ring.iter().step_by(2).copied().collect();
        // After the first interpolated sample the left channel falls steadily.
        assert!(left.len() > 150);
        assert!(left[5..].windows(2).all(|w| w[1] <= w[0]), "{left:?}");
        assert!(ring.iter().skip(11).step_by(2).all(|&r| r <= 0.0));
    }

    #[test]
    fn a_dead_device_turns_the_sink_silent() {
        let (mut sink, shared) = sink_at(48_000.0);
        shared.dead.store(true, Ordering::Relaxed);
        sink.push(&[1, 2, 3, 4], true);
        assert!(sink.shared.is_none());
        assert!(shared.ring.lock().unwrap().is_empty());
    }

    /// The largest change between neighbouring output samples (a click is a big one).
    fn largest_jump(samples: &[[f32; 2]]) -> f32 {
        samples
            .windows(2)
            .map(|pair| (pair[1][0] - pair[0][0]).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn the_menu_fades_the_sound_out_holds_silence_and_fades_it_back_in() {
        let rate = 48_000.0;
        let (mut sink, shared) = sink_at(rate);
        let mut mixer = Mixer::new(rate);
        let loud = vec![16_000i16; 2 * 800];
        let mut out = vec![[0.0f32; 2]; 1000];
        let play = |mixer: &mut Mixer, out: &mut [[f32; 2]]| {
            let mut ring = shared.ring.lock().unwrap();
            mixer.fill(Some(&mut ring), &shared.controls, out);
        };
        for _ in 0..4 {
            sink.push(&loud, false);
        }
        play(&mut mixer, &mut out);
        assert!(out.last().unwrap()[0] > 0.45, "faded in at the start");
        let fade = (FADE_SECONDS * rate as f32) as usize;
        sink.hold(true);
        play(&mut mixer, &mut out);
        assert!(largest_jump(&out) < 0.01, "no click going silent");
        assert_eq!(out[fade + 1], [0.0; 2], "silent after the fade");
        assert!(shared.ring.lock().unwrap().is_empty(), "the rest dropped");
        // The menu stays open: silence, however long the callback runs dry.
        for _ in 0..10 {
            play(&mut mixer, &mut out);
            assert!(out.iter().all(|pair| *pair == [0.0; 2]));
        }
        sink.hold(false);
        sink.push(&loud, false);
        let queued = shared.ring.lock().unwrap().len();
        play(&mut mixer, &mut out);
        assert!(
            out.iter().all(|pair| *pair == [0.0; 2]),
            "silent until refilled"
        );
        assert_eq!(shared.ring.lock().unwrap().len(), queued, "nothing taken");
        for _ in 0..3 {
            sink.push(&loud, false);
        }
        let mut resumed = vec![[0.0f32; 2]; 2000];
        play(&mut mixer, &mut resumed);
        assert!(largest_jump(&resumed) < 0.01, "no click coming back");
        assert!(resumed.last().unwrap()[0] > 0.45, "back at full volume");
    }

    #[test]
    fn volume_and_mute_follow_the_controls() {
        let rate = 48_000.0;
        let (mut sink, shared) = sink_at(rate);
        let mut mixer = Mixer::new(rate);
        let mut out = vec![[0.0f32; 2]; 1000];
        let mut level = |mixer: &mut Mixer, out: &mut Vec<[f32; 2]>| {
            sink.push(&vec![16_384i16; 2 * 1000], false);
            let mut ring = shared.ring.lock().unwrap();
            mixer.fill(Some(&mut ring), &shared.controls, out);
            out.last().unwrap()[0]
        };
        assert!((level(&mut mixer, &mut out) - 0.5).abs() < 1e-3);
        shared.controls.set_volume(50);
        assert!((level(&mut mixer, &mut out) - 0.125).abs() < 1e-3);
        shared.controls.set_mute(true);
        assert_eq!(level(&mut mixer, &mut out), 0.0);
    }
}
