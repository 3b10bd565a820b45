//! Audio out through cpal, fed by the emulation thread through a shared sample ring.
//!
//! The core makes 48 kHz interleaved stereo. The emulation thread resamples it to the device
//! rate with a ratio nudged by at most ±0.5 % from how full the ring is (dynamic rate
//! control): emulation is paced by the wall clock at the true 59.7275 frames/s, and the small
//! pitch change absorbs the drift between that clock and the sound card's, so the ring
//! neither runs dry (crackle) nor grows (latency) over a long session.
//!
//! Without a device (none present, `--no-audio`, or the stream failing later) the sink drops
//! samples and the game runs silent at the right speed; that is logged once. When a device
//! that worked goes away (a USB headset unplugged, the sound server restarted), the UI thread
//! tries the default device again every few seconds and hands the emulation thread a new
//! sink once one opens.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The core's output rate.
const SOURCE_RATE: f64 = 48_000.0;
/// The ring holds this much audio when all is well (about 3 frames).
const TARGET_LATENCY_SECONDS: f64 = 0.05;
/// The largest resampling-ratio change dynamic rate control applies.
const MAX_RATE_ADJUST: f64 = 0.005;
/// How often a lost device is looked for again.
const RECONNECT_INTERVAL: Duration = Duration::from_secs(3);

struct Shared {
    /// Interleaved stereo f32 at the device rate.
    ring: Mutex<VecDeque<f32>>,
    /// Set when the stream reported an error: the device went away.
    dead: AtomicBool,
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
    /// Set once a device has worked: only then is a lost one looked for again. With none at
    /// start there is nothing to wait for, and every attempt makes alsa-lib print noise.
    reconnect: bool,
    last_attempt: Instant,
}

impl AudioOutput {
    fn none() -> AudioOutput {
        AudioOutput {
            stream: None,
            shared: None,
            reconnect: false,
            last_attempt: Instant::now(),
        }
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
        match try_open() {
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
        let target = TARGET_LATENCY_SECONDS * self.device_rate * 2.0;
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
pub fn open(enabled: bool) -> (AudioSink, AudioOutput) {
    if !enabled {
        log::info!("audio off (--no-audio)");
        return (AudioSink::silent(), AudioOutput::none());
    }
    match try_open() {
        Ok((sink, stream)) => {
            let output = AudioOutput {
                stream: Some(stream),
                shared: sink.shared.clone(),
                reconnect: true,
                last_attempt: Instant::now(),
            };
            (sink, output)
        }
        Err(reason) => {
            log::warn!("no audio ({reason}); running silent at normal speed");
            (AudioSink::silent(), AudioOutput::none())
        }
    }
}

fn try_open() -> Result<(AudioSink, cpal::Stream), String> {
    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    let host = cpal::default_host();
    let device = host.default_output_device().ok_or("no output device")?;
    let config = device.default_output_config().map_err(|e| e.to_string())?;
    let channels = usize::from(config.channels());
    let device_rate = f64::from(config.sample_rate());
    let shared = Arc::new(Shared {
        ring: Mutex::new(VecDeque::with_capacity(48_000)),
        dead: AtomicBool::new(false),
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
    device.build_output_stream(
        *config,
        move |out: &mut [T], _: &cpal::OutputCallbackInfo| {
            // Never wait on the emulation thread here: on contention, play silence.
            let mut ring = reader.ring.try_lock().ok();
            for frame in out.chunks_mut(channels) {
                let (left, right) = match ring.as_mut() {
                    Some(ring) if ring.len() >= 2 => (
                        ring.pop_front().unwrap_or(0.0),
                        ring.pop_front().unwrap_or(0.0),
                    ),
                    _ => (0.0, 0.0),
                };
                for (channel, sample) in frame.iter_mut().enumerate() {
                    let value = if channel % 2 == 0 { left } else { right };
                    *sample = T::from_sample(value);
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
        let target = TARGET_LATENCY_SECONDS * 44_100.0 * 2.0;
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
}
