//! The rewind benchmark behind `backspin rewind-bench`: plays a ROM with a seeded,
//! human-like joypad script while storing history as the player does, then seeks to random
//! frames and steps back and forward one frame at a time, checking every restored state and
//! picture byte for byte against copies taken during play.
//!
//! Everything is a function of the ROM bytes and [`BenchConfig`], so tests can run a short
//! version on any ROM (ours included). It drives `backspin-rewind` through its public API;
//! the one thing it needs beyond a player's is the two halves of a frame
//! (`Timeline::emulate_frame`, `Timeline::record_frame`), timed apart. Timings are wall-clock and only reported, never
//! asserted.

use backspin_core::{
    Buttons, Core, M_CYCLES_PER_FRAME, M_CYCLES_PER_SECOND, Model, Options, Rom, RomError, State,
};
use backspin_movie::{InputScript, SplitMix64};
use backspin_rewind::{Config, Rewinder, Timeline, frames_to_seconds};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub(crate) struct BenchConfig {
    /// The Game Boy to emulate.
    pub(crate) model: Model,
    /// Emulated seconds of play.
    pub(crate) seconds: u64,
    /// Seed of the joypad script.
    pub(crate) input_seed: u64,
    /// Random frames to seek to (each verified).
    pub(crate) seeks: usize,
    /// Single-frame steps back from the newest frame, then as many steps forward (redo).
    pub(crate) steps: usize,
    /// Ring budget for the every-frame rewinder (large enough to hold the whole run).
    pub(crate) budget_bytes: usize,
    /// Thinning factor of the second rewinder run alongside (k in "every k-th frame").
    pub(crate) thinned_every: u32,
    /// Random seeks verified on the thinned rewinder.
    pub(crate) thinned_seeks: usize,
    /// Emulated seconds for the capture-off vs capture-on timing passes (three each).
    pub(crate) slowdown_seconds: u64,
}

impl Default for BenchConfig {
    fn default() -> BenchConfig {
        BenchConfig {
            model: Model::Dmg,
            seconds: 600,
            input_seed: 1,
            seeks: 1000,
            steps: 600,
            budget_bytes: 64 << 20,
            thinned_every: 4,
            thinned_seeks: 200,
            slowdown_seconds: 60,
        }
    }
}

/// Percentiles of a set of timings.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Percentiles {
    pub(crate) p50: f64,
    pub(crate) p99: f64,
    pub(crate) max: f64,
}

impl Percentiles {
    fn of(mut samples: Vec<Duration>, unit_per_second: f64) -> Percentiles {
        if samples.is_empty() {
            return Percentiles::default();
        }
        samples.sort_unstable();
        let at = |q: f64| {
            let i = ((samples.len() - 1) as f64 * q).round() as usize;
            samples[i].as_secs_f64() * unit_per_second
        };
        Percentiles {
            p50: at(0.50),
            p99: at(0.99),
            max: at(1.0),
        }
    }
}

/// The results. `to_json` prints every figure `docs/rewind.md` reports, and a few more.
#[derive(Clone, Debug, Default)]
pub(crate) struct BenchReport {
    pub(crate) rom_title: String,
    pub(crate) model: Model,
    pub(crate) emulated_seconds: f64,
    pub(crate) frames: u64,
    pub(crate) bytes_per_emulated_second: f64,
    pub(crate) keyframes: u64,
    pub(crate) last_keyframe_bytes: usize,
    pub(crate) capture_us: Percentiles,
    pub(crate) seek_ms: Percentiles,
    pub(crate) step_back_ms: Percentiles,
    pub(crate) step_forward_ms: Percentiles,
    /// Per operation, the fastest of `TIMING_PASSES` identical passes: the cost of the work
    /// itself, without preemption by other processes (shared machines).
    pub(crate) seek_ms_best_of_passes: Percentiles,
    pub(crate) step_back_ms_best_of_passes: Percentiles,
    pub(crate) step_forward_ms_best_of_passes: Percentiles,
    pub(crate) emulation_slowdown_pct: f64,
    /// The timeline's default: it stores every this many frames.
    pub(crate) capture_every: u32,
    /// `emulation_slowdown_pct` with every frame stored (`capture_every` 1), for comparison.
    pub(crate) every_frame_slowdown_pct: f64,
    /// Capture time as a share of frame emulation time in the main pass.
    pub(crate) capture_share_pct: f64,
    pub(crate) emulated_frames_per_second: f64,
    pub(crate) thinned_every: u32,
    pub(crate) thinned_bytes_per_emulated_second: f64,
    pub(crate) history_seconds_in_64mib: f64,
    pub(crate) thinned_history_seconds_in_64mib: f64,
    pub(crate) input_events: usize,
    pub(crate) checks: usize,
    /// Checks that also compared the picture (drawn frames only; see `Expected::drawn`).
    pub(crate) picture_checks: usize,
    pub(crate) failures: usize,
    pub(crate) first_failure: Option<String>,
    pub(crate) verified: bool,
    /// The machine's 1-minute load average at the end (Linux only): timings are wall-clock,
    /// and on a shared machine other processes show up in the p99s.
    pub(crate) load_average: Option<f64>,
}

impl BenchReport {
    pub(crate) fn to_json(&self) -> String {
        let mut s = String::from("{\n");
        let mut field = |name: &str, value: String| {
            let _ = writeln!(s, "  \"{name}\": {value},");
        };
        let num = |v: f64| {
            if v.is_finite() {
                format!("{v:.3}")
            } else {
                "null".to_string()
            }
        };
        field("rom_title", json_string(&self.rom_title));
        field("model", json_string(&format!("{:?}", self.model)));
        field("emulated_seconds", num(self.emulated_seconds));
        field("frames", self.frames.to_string());
        field(
            "bytes_per_emulated_second",
            num(self.bytes_per_emulated_second),
        );
        field(
            "kib_per_emulated_second",
            num(self.bytes_per_emulated_second / 1024.0),
        );
        field("keyframes", self.keyframes.to_string());
        // A retired option (blocks stored by value): always 0, kept for readers of the JSON.
        field("value_blocks", "0".to_string());
        field("last_keyframe_bytes", self.last_keyframe_bytes.to_string());
        field("capture_us_p50", num(self.capture_us.p50));
        field("capture_us_p99", num(self.capture_us.p99));
        field("capture_us_max", num(self.capture_us.max));
        field("seek_ms_p50", num(self.seek_ms.p50));
        field("seek_ms_p99", num(self.seek_ms.p99));
        field("seek_ms_max", num(self.seek_ms.max));
        field("step_back_ms_p50", num(self.step_back_ms.p50));
        field("step_back_ms_p99", num(self.step_back_ms.p99));
        field("step_forward_ms_p50", num(self.step_forward_ms.p50));
        field("step_forward_ms_p99", num(self.step_forward_ms.p99));
        for (name, p) in [
            ("seek_ms", self.seek_ms_best_of_passes),
            ("step_back_ms", self.step_back_ms_best_of_passes),
            ("step_forward_ms", self.step_forward_ms_best_of_passes),
        ] {
            field(&format!("{name}_p50_best_of_{TIMING_PASSES}"), num(p.p50));
            field(&format!("{name}_p99_best_of_{TIMING_PASSES}"), num(p.p99));
        }
        field("emulation_slowdown_pct", num(self.emulation_slowdown_pct));
        field("capture_every", self.capture_every.to_string());
        field(
            "every_frame_slowdown_pct",
            num(self.every_frame_slowdown_pct),
        );
        field("capture_share_pct", num(self.capture_share_pct));
        field(
            "emulated_frames_per_second",
            num(self.emulated_frames_per_second),
        );
        field(
            &format!("thinned_k{}_bytes_per_emulated_second", self.thinned_every),
            num(self.thinned_bytes_per_emulated_second),
        );
        field(
            "history_seconds_in_64MiB",
            num(self.history_seconds_in_64mib),
        );
        field(
            &format!("thinned_k{}_history_seconds_in_64MiB", self.thinned_every),
            num(self.thinned_history_seconds_in_64mib),
        );
        field("input_events", self.input_events.to_string());
        field("checks", self.checks.to_string());
        field("picture_checks", self.picture_checks.to_string());
        field("failures", self.failures.to_string());
        field(
            "first_failure",
            self.first_failure
                .as_deref()
                .map_or("null".to_string(), json_string),
        );
        field(
            "load_average",
            self.load_average.map_or("null".to_string(), num),
        );
        let _ = writeln!(s, "  \"verified\": {}\n}}", self.verified);
        s
    }
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Passes over the seek and step sequence (see `BenchReport::seek_ms_best_of_passes`).
const TIMING_PASSES: usize = 3;

/// Emulated frames in `seconds`.
fn frames_in(seconds: u64) -> u64 {
    (seconds * M_CYCLES_PER_SECOND).div_ceil(M_CYCLES_PER_FRAME)
}

struct Expected {
    state: Box<State>,
    /// The shades (DMG) or the RGB555 colours (CGB) of the frame, as bytes.
    picture: Box<[u8]>,
    /// The LCD was on at the end of this frame and of the one before, so the whole picture
    /// was drawn during the frame. With the LCD off the PPU draws nothing and the buffer
    /// keeps an older picture (a real DMG shows a blank screen then), so only drawn
    /// pictures are compared.
    drawn: bool,
}

/// The picture of the frame just finished: the shades on a DMG, the colours on a CGB (where
/// the shades buffer holds colour numbers before the palette).
fn picture_bytes(core: &Core) -> &[u8] {
    if core.frame_is_rgb() {
        bytemuck::cast_slice(&core.frame_rgb()[..])
    } else {
        &core.frame()[..]
    }
}

struct Checker {
    checks: usize,
    picture_checks: usize,
    failures: usize,
    first_failure: Option<String>,
}

impl Checker {
    fn check(&mut self, what: &str, frame: u64, core: &Core, expected: &Expected, picture: bool) {
        self.checks += 1;
        let state_ok = core.state().as_bytes() == expected.state.as_bytes();
        let compare_picture = picture && expected.drawn;
        if compare_picture {
            self.picture_checks += 1;
        }
        let picture_ok = !compare_picture || picture_bytes(core) == &expected.picture[..];
        if !(state_ok && picture_ok) {
            self.failures += 1;
            if self.first_failure.is_none() {
                let first_diff = core
                    .state()
                    .as_bytes()
                    .iter()
                    .zip(expected.state.as_bytes())
                    .position(|(a, b)| a != b);
                self.first_failure = Some(format!(
                    "{what} frame {frame}: state {} (first differing byte {first_diff:?}), picture {}",
                    if state_ok { "ok" } else { "differs" },
                    if picture_ok { "ok" } else { "differs" },
                ));
            }
        }
    }
    fn error(&mut self, what: &str, frame: u64, error: impl std::fmt::Display) {
        self.checks += 1;
        self.failures += 1;
        if self.first_failure.is_none() {
            self.first_failure = Some(format!("{what} frame {frame}: {error}"));
        }
    }
}

/// Plays `config.seconds` of `rom`, then seeks and steps, verifying every result.
pub(crate) fn run(rom: &[u8], config: &BenchConfig) -> Result<BenchReport, RomError> {
    let rom = Rom::from_bytes(rom.to_vec())?;
    let frames = frames_in(config.seconds).max(2);
    let mut report = BenchReport {
        rom_title: rom.title(),
        model: config.model,
        frames,
        emulated_seconds: frames_to_seconds(frames),
        thinned_every: config.thinned_every,
        ..BenchReport::default()
    };

    // Pick what will be verified before playing, so only those states are copied.
    let mut rng = SplitMix64::new(config.input_seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 7);
    let seek_targets: Vec<u64> = (0..config.seeks).map(|_| rng.range(1, frames)).collect();
    let thinned_targets: Vec<u64> = (0..config.thinned_seeks)
        .map(|_| rng.range(1, frames))
        .collect();
    let steps = (config.steps as u64).min(frames - 1);
    let mut wanted: BTreeMap<u64, Option<Expected>> = BTreeMap::new();
    for &f in seek_targets.iter().chain(&thinned_targets) {
        wanted.insert(f, None);
    }
    for f in frames - steps..=frames {
        wanted.insert(f, None);
    }

    // Main pass: the timeline the player runs (default settings), and a thinned rewinder
    // fed the same inputs alongside.
    let config_every = Config::new(config.budget_bytes);
    report.capture_every = config_every.capture_every;
    let mut timeline = Timeline::with_config(Core::new(rom.clone(), options(config)), config_every);
    let mut thinned = Rewinder::with_config(Config {
        capture_every: config.thinned_every,
        ..Config::new(config.budget_bytes)
    });
    let mut script = InputScript::new(config.input_seed);
    let mut capture_times = Vec::with_capacity(frames as usize);
    let mut emulation_time = Duration::ZERO;
    let first_frame = timeline.frame();
    thinned.capture(timeline.core().state(), first_frame);
    let mut lcd_on = timeline.peek(0xFF40) & 0x80 != 0;
    for _ in 0..frames {
        let was_lcd_on = lcd_on;
        let buttons = script.next_frame();
        // No resets here, so the timeline cycle is the core's M-cycle for both.
        thinned.record_input(timeline.cycle(), buttons);
        timeline.set_buttons(buttons);
        let t = Instant::now();
        timeline.emulate_frame();
        emulation_time += t.elapsed();
        let frame = timeline.frame();
        lcd_on = timeline.peek(0xFF40) & 0x80 != 0;
        let t = Instant::now();
        timeline.record_frame();
        capture_times.push(t.elapsed());
        thinned.capture(timeline.core().state(), frame);
        if let Some(slot) = wanted.get_mut(&(frame - first_frame)) {
            *slot = Some(Expected {
                state: Box::new(*timeline.core().state()),
                picture: picture_bytes(timeline.core()).into(),
                drawn: lcd_on && was_lcd_on,
            });
        }
    }
    let stats = timeline.stats();
    let thinned_stats = thinned.stats();
    let seconds = report.emulated_seconds;
    report.bytes_per_emulated_second = stats.bytes_written as f64 / seconds;
    report.thinned_bytes_per_emulated_second = thinned_stats.bytes_written as f64 / seconds;
    report.keyframes = stats.keyframes_written;
    report.last_keyframe_bytes = stats.last_keyframe_bytes;
    report.input_events = stats.input_events;
    let mib64 = (64u64 << 20) as f64;
    report.history_seconds_in_64mib = mib64 / report.bytes_per_emulated_second;
    report.thinned_history_seconds_in_64mib = mib64 / report.thinned_bytes_per_emulated_second;
    let capture_total: Duration = capture_times.iter().sum();
    report.capture_share_pct =
        100.0 * capture_total.as_secs_f64() / emulation_time.as_secs_f64().max(1e-9);
    report.emulated_frames_per_second = frames as f64 / emulation_time.as_secs_f64().max(1e-9);
    report.capture_us = Percentiles::of(capture_times, 1e6);

    let mut checker = Checker {
        checks: 0,
        picture_checks: 0,
        failures: 0,
        first_failure: None,
    };
    let newest = first_frame + frames;
    let oldest = timeline.span().oldest;
    let expected = |f: u64| wanted.get(&(f - first_frame)).and_then(Option::as_ref);

    // Random seeks, then steps back from the newest frame and forward again (redo). The
    // whole sequence runs `TIMING_PASSES` times, verified every time: the first pass gives
    // the plain wall-clock figures; the per-operation minimum over the passes gives the
    // cost without preemption by other processes (same operations, same order, so the
    // same work), reported beside them.
    let mut seek_times = vec![Vec::new(); TIMING_PASSES];
    let mut back_times = vec![Vec::new(); TIMING_PASSES];
    let mut forward_times = vec![Vec::new(); TIMING_PASSES];
    for pass in 0..TIMING_PASSES {
        for &target in &seek_targets {
            let f = first_frame + target;
            if f < oldest {
                continue;
            }
            let t = Instant::now();
            let result = timeline.seek(f);
            seek_times[pass].push(t.elapsed());
            match result {
                Ok(seek) => checker.check(
                    "seek",
                    f,
                    timeline.core(),
                    expected(f).expect("copied"),
                    seek.picture_exact,
                ),
                Err(e) => checker.error("seek", f, e),
            }
        }
        let _ = timeline.seek(newest);
        for k in 1..=steps {
            let f = newest - k;
            if f < oldest {
                break;
            }
            let t = Instant::now();
            let result = timeline.step_back();
            back_times[pass].push(t.elapsed());
            match result {
                Ok(seek) => checker.check(
                    "step back",
                    f,
                    timeline.core(),
                    expected(f).expect("copied"),
                    seek.picture_exact,
                ),
                Err(e) => checker.error("step back", f, e),
            }
        }
        let start = timeline.frame();
        for f in start + 1..=newest {
            let t = Instant::now();
            let result = timeline.step_forward();
            forward_times[pass].push(t.elapsed());
            match result {
                Ok(seek) => checker.check(
                    "step forward",
                    f,
                    timeline.core(),
                    expected(f).expect("copied"),
                    seek.picture_exact,
                ),
                Err(e) => checker.error("step forward", f, e),
            }
        }
    }
    let per_op_min = |passes: &[Vec<Duration>]| -> Vec<Duration> {
        (0..passes[0].len())
            .map(|i| {
                passes
                    .iter()
                    .filter_map(|p| p.get(i))
                    .min()
                    .copied()
                    .unwrap_or_default()
            })
            .collect()
    };
    report.seek_ms_best_of_passes = Percentiles::of(per_op_min(&seek_times), 1e3);
    report.step_back_ms_best_of_passes = Percentiles::of(per_op_min(&back_times), 1e3);
    report.step_forward_ms_best_of_passes = Percentiles::of(per_op_min(&forward_times), 1e3);
    report.seek_ms = Percentiles::of(seek_times.swap_remove(0), 1e3);
    report.step_back_ms = Percentiles::of(back_times.swap_remove(0), 1e3);
    report.step_forward_ms = Percentiles::of(forward_times.swap_remove(0), 1e3);

    // The thinned rewinder re-simulates up to k - 1 extra frames; it must be exact too.
    let thinned_oldest = thinned.oldest_frame().unwrap_or(newest);
    let mut core = timeline.core().clone();
    for &target in &thinned_targets {
        let f = first_frame + target;
        if f < thinned_oldest {
            continue;
        }
        match thinned.seek_core(&mut core, f) {
            Ok(seek) => checker.check(
                "thinned seek",
                f,
                &core,
                expected(f).expect("copied"),
                seek.picture_exact,
            ),
            Err(e) => checker.error("thinned seek", f, e),
        }
    }
    drop(wanted);

    report.emulation_slowdown_pct = slowdown_pct(&rom, config, report.capture_every);
    report.every_frame_slowdown_pct = slowdown_pct(&rom, config, 1);
    report.checks = checker.checks;
    report.picture_checks = checker.picture_checks;
    report.failures = checker.failures;
    report.first_failure = checker.first_failure;
    report.verified = checker.checks > 0 && checker.failures == 0;
    report.load_average = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok());
    Ok(report)
}

fn options(config: &BenchConfig) -> Options {
    Options {
        model: config.model,
        boot_rom: None,
    }
}

/// Wall-clock cost of storing every `capture_every`-th frame. Two cores play the same
/// script, one with history off and one with it on, advanced alternately in chunks of 30
/// frames so that whatever else the machine is doing slows both alike; the chunk times are
/// summed per core and the fastest of three runs of each is compared.
fn slowdown_pct(rom: &Rom, config: &BenchConfig, capture_every: u32) -> f64 {
    const CHUNK: u64 = 30;
    let frames = frames_in(config.slowdown_seconds.max(1));
    let mut best_off = f64::MAX;
    let mut best_on = f64::MAX;
    for _ in 0..3 {
        let mut off_core = Core::new(rom.clone(), options(config));
        let mut on = Timeline::with_config(
            Core::new(rom.clone(), options(config)),
            Config {
                capture_every,
                ..Config::new(config.budget_bytes)
            },
        );
        let mut off_script = InputScript::new(config.input_seed);
        let mut on_script = InputScript::new(config.input_seed);
        let (mut off, mut on_time) = (Duration::ZERO, Duration::ZERO);
        let mut done = 0;
        while done < frames {
            let n = CHUNK.min(frames - done);
            let t = Instant::now();
            for _ in 0..n {
                off_core.set_buttons(Buttons(off_script.next_frame()));
                backspin_core::run_one_frame(&mut off_core);
            }
            off += t.elapsed();
            let t = Instant::now();
            for _ in 0..n {
                on.set_buttons(on_script.next_frame());
                on.run_frame();
            }
            on_time += t.elapsed();
            done += n;
        }
        best_off = best_off.min(off.as_secs_f64());
        best_on = best_on.min(on_time.as_secs_f64());
    }
    100.0 * (best_on - best_off) / best_off.max(1e-9)
}

#[cfg(test)]
mod tests;
