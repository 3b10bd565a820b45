//! The APU through its machine-facing interface, without a CPU: register behaviour, the
//! frame sequencer, lazy catch-up against eager catch-up, and output that settles to zero.

use backspin_core::AudioOut;
use backspin_core::state::ApuState;
use backspin_test_support::SplitMix64;
use bytemuck::Zeroable;

/// M-cycles between DIV-APU events (DIV bit 4 falls every 8192 T-cycles).
const M_CYCLES_PER_DIV_APU: u32 = 2048;

fn powered_on() -> ApuState {
    let mut apu = ApuState::zeroed();
    apu.write_register(0x26, 0x80, true);
    apu
}

/// Ticks like the machine does: an M-cycle at a time, with DIV-APU events every 2048.
struct Clock {
    m_cycles: u64,
}

impl Clock {
    fn run(&mut self, apu: &mut ApuState, audio: &mut AudioOut, m_cycles: u32) {
        for _ in 0..m_cycles {
            apu.tick(audio);
            self.m_cycles += 1;
            if self
                .m_cycles
                .is_multiple_of(u64::from(M_CYCLES_PER_DIV_APU))
            {
                apu.div_apu_event(true);
            }
        }
    }
}

#[test]
fn registers_read_back_with_their_masks() {
    let mut apu = powered_on();
    let masks: [u8; 0x17] = [
        0x80, 0x3F, 0x00, 0xFF, 0xBF, 0xFF, 0x3F, 0x00, 0xFF, 0xBF, 0x7F, 0xFF, 0x9F, 0xFF, 0xBF,
        0xFF, 0xFF, 0x00, 0x00, 0xBF, 0x00, 0x00, 0x70,
    ];
    for (i, &mask) in masks.iter().enumerate().take(0x16) {
        // Writing 0 keeps every channel silent (no trigger, DACs off).
        apu.write_register(0x10 + i as u8, 0x00, true);
        assert_eq!(
            apu.read_register(0x10 + i as u8),
            mask,
            "FF{:02X}",
            0x10 + i
        );
    }
    assert_eq!(apu.read_register(0x26), 0xF0);
    for reg in 0x27..=0x2F {
        assert_eq!(apu.read_register(reg), 0xFF);
    }
}

#[test]
fn power_off_clears_registers_but_not_wave_ram_and_lengths_stay_writable() {
    let mut apu = powered_on();
    apu.write_register(0x30, 0x12, true);
    apu.write_register(0x24, 0x77, true);
    apu.write_register(0x12, 0xF0, true);
    apu.write_register(0x14, 0x80, true); // trigger square 1
    assert_eq!(apu.read_register(0x26), 0xF1);
    apu.write_register(0x26, 0x00, true);
    assert_eq!(apu.read_register(0x26), 0x70);
    assert_eq!(apu.read_register(0x24), 0x00);
    assert_eq!(apu.read_register(0x12), 0x00);
    assert_eq!(apu.read_register(0x30), 0x12);
    // Ignored while off...
    apu.write_register(0x12, 0xF0, true);
    assert_eq!(apu.read_register(0x12), 0x00);
    // ...except the DMG's length counters: 63 written while off is one tick from the end.
    apu.write_register(0x11, 0xFF, true);
    apu.write_register(0x26, 0x80, true);
    apu.write_register(0x12, 0xF0, true);
    apu.write_register(0x14, 0xC0, true); // trigger with length enabled
    assert_eq!(apu.read_register(0x26) & 1, 1);
    assert_eq!(
        apu.read_register(0x11),
        0x3F,
        "duty bits were not written while off"
    );
    apu.div_apu_event(true); // step 0 clocks lengths
    assert_eq!(apu.read_register(0x26) & 1, 0);
}

#[test]
fn length_counter_silences_after_its_count() {
    let mut apu = powered_on();
    apu.write_register(0x17, 0xF0, true);
    apu.write_register(0x16, 64 - 3, true); // length 3
    apu.write_register(0x19, 0xC0, true);
    let mut clocks = 0;
    while apu.read_register(0x26) & 2 != 0 {
        apu.div_apu_event(true);
        clocks += 1;
        assert!(clocks < 100);
    }
    // Lengths are clocked on every other step, starting with the first: 3 → steps 0, 2, 4.
    assert_eq!(clocks, 5);
}

#[test]
fn dac_off_silences_the_channel_and_trigger_needs_the_dac() {
    let mut apu = powered_on();
    apu.write_register(0x21, 0x00, true); // noise DAC off
    apu.write_register(0x23, 0x80, true);
    assert_eq!(apu.read_register(0x26) & 8, 0);
    apu.write_register(0x21, 0x08, true);
    apu.write_register(0x23, 0x80, true);
    assert_eq!(apu.read_register(0x26) & 8, 8);
    apu.write_register(0x21, 0x00, true);
    assert_eq!(apu.read_register(0x26) & 8, 0);
}

#[test]
fn sweep_overflow_on_trigger_and_negate_quirk() {
    let mut apu = powered_on();
    let mut audio = AudioOut::default();
    // A trigger's sweep calculation completes a few M-cycles after it.
    let mut settle = |apu: &mut ApuState| {
        for _ in 0..16 {
            apu.tick(&mut audio);
        }
    };
    apu.write_register(0x12, 0xF0, true);
    // Shift 1, up: $7FF + $3FF overflows.
    apu.write_register(0x10, 0x11, true);
    apu.write_register(0x13, 0xFF, true);
    apu.write_register(0x14, 0x87, true);
    assert_eq!(apu.read_register(0x26) & 1, 1, "not yet");
    settle(&mut apu);
    assert_eq!(apu.read_register(0x26) & 1, 0);
    // Negate mode used, then cleared: the channel turns off.
    apu.write_register(0x10, 0x19, true);
    apu.write_register(0x13, 0x00, true);
    apu.write_register(0x14, 0x84, true);
    settle(&mut apu);
    assert_eq!(apu.read_register(0x26) & 1, 1);
    apu.write_register(0x10, 0x11, true);
    assert_eq!(apu.read_register(0x26) & 1, 0);
}

#[test]
fn wave_ram_is_blocked_while_the_wave_channel_plays() {
    let mut apu = powered_on();
    let mut audio = AudioOut::default();
    for i in 0..16 {
        apu.write_register(0x30 + i, i * 0x11, true);
    }
    apu.write_register(0x1A, 0x80, true);
    // $701: one sample every 510 T-cycles; with the trigger's 6-cycle delay every other read
    // falls on an M-cycle boundary, where the CPU's access sees it.
    apu.write_register(0x1D, 0x01, true);
    apu.write_register(0x1E, 0x87, true);
    let mut seen = Vec::new();
    for _ in 0..2000 {
        apu.tick(&mut audio);
        seen.push(apu.read_register(0x35));
    }
    let open = seen.iter().filter(|&&b| b != 0xFF).count();
    assert!((7..=8).contains(&open), "{open} accesses got through");
    // The ones that got through read the byte the channel was at, not $35.
    assert!(seen.iter().any(|&b| b != 0xFF && b != 0x55));
}

fn random_write(random: &mut SplitMix64) -> (u8, u8) {
    let reg = match random.below(10) {
        0 => 0x14 + 5 * random.below(4) as u8, // NRx4 (0x14, 0x19, 0x1E, 0x23)
        1 => 0x30 + random.below(16) as u8,
        2 => 0x24 + random.below(2) as u8,
        _ => 0x10 + random.below(0x17) as u8,
    };
    let mut value = random.next_u64() as u8;
    if reg == 0x26 {
        value |= 0x80; // power cycles are rare: mostly keep it on
        if random.below(8) == 0 {
            value = 0;
        }
    }
    (reg, value)
}

#[test]
fn lazy_catch_up_matches_catching_up_every_m_cycle() {
    let seed = 0x00A9_0001;
    println!("seed {seed:#x}");
    let mut random = SplitMix64::new(seed);
    let mut lazy = powered_on();
    let mut eager = powered_on();
    let (mut lazy_audio, mut eager_audio) = (AudioOut::default(), AudioOut::default());
    let mut m_cycles = 0u64;
    for round in 0..3000 {
        let gap = match random.below(4) {
            0 => random.below(4),
            1 => random.below(64),
            _ => random.below(3000),
        };
        for _ in 0..gap {
            m_cycles += 1;
            lazy.tick(&mut lazy_audio);
            eager.tick(&mut eager_audio);
            eager.catch_up();
            if m_cycles.is_multiple_of(u64::from(M_CYCLES_PER_DIV_APU)) {
                lazy.div_apu_event(true);
                eager.div_apu_event(true);
            }
            if m_cycles.is_multiple_of(7) {
                let reg = 0x30 + (m_cycles % 16) as u8;
                assert_eq!(lazy.read_register(reg), eager.read_register(reg));
            }
        }
        let (reg, value) = random_write(&mut random);
        lazy.write_register(reg, value, true);
        eager.write_register(reg, value, true);
        let mut lazy_copy = lazy;
        lazy_copy.catch_up();
        assert!(
            bytemuck::bytes_of(&lazy_copy) == bytemuck::bytes_of(&eager),
            "state differs after round {round}"
        );
        for reg in 0x10..=0x3F {
            assert_eq!(
                lazy.read_register(reg),
                eager.read_register(reg),
                "FF{reg:02X}"
            );
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    lazy_audio.drain_i16(&mut a);
    eager_audio.drain_i16(&mut b);
    assert!(a.len() > 48_000, "{} samples", a.len());
    assert!(a == b, "audio differs");
    assert!(
        a.iter().any(|&s| s != 0),
        "the random traffic made some sound"
    );
}

#[test]
fn advance_is_exactly_n_ticks() {
    let seed = 0x00A9_0002;
    println!("seed {seed:#x}");
    let mut random = SplitMix64::new(seed);
    let mut ticked = powered_on();
    let mut advanced = powered_on();
    let (mut ticked_audio, mut advanced_audio) = (AudioOut::default(), AudioOut::default());
    for round in 0..2000 {
        let n = random.below(2047) as u32;
        for _ in 0..n {
            ticked.tick(&mut ticked_audio);
        }
        advanced.advance(n, &mut advanced_audio);
        assert!(
            bytemuck::bytes_of(&ticked) == bytemuck::bytes_of(&advanced),
            "state differs after round {round} (n = {n})"
        );
        ticked.div_apu_event(true);
        advanced.div_apu_event(true);
        let (reg, value) = random_write(&mut random);
        ticked.write_register(reg, value, true);
        advanced.write_register(reg, value, true);
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    ticked_audio.drain_i16(&mut a);
    advanced_audio.drain_i16(&mut b);
    assert!(a == b);
}

/// Double speed (one 2 MHz APU cycle per CPU M-cycle) mixed with single speed, so odd APU
/// cycles cross flushes and speed changes: ticking, advancing and catching up after every
/// cycle give the same state, PCM reads and samples.
#[test]
fn double_speed_ticks_advance_and_catch_up_alike() {
    let seed = 0x00A9_0003;
    println!("seed {seed:#x}");
    let mut random = SplitMix64::new(seed);
    let mut ticked = powered_on();
    let mut advanced = powered_on();
    let mut eager = powered_on();
    let mut audio = [
        AudioOut::default(),
        AudioOut::default(),
        AudioOut::default(),
    ];
    for round in 0..2000 {
        let double_speed = random.below(3) != 0;
        let longest = if random.below(2) == 0 { 9 } else { 4095 };
        let n = random.below(longest) as u32;
        for _ in 0..n {
            if double_speed {
                ticked.tick_double_speed(&mut audio[0]);
                eager.tick_double_speed(&mut audio[2]);
            } else {
                ticked.tick(&mut audio[0]);
                eager.tick(&mut audio[2]);
            }
            eager.catch_up();
        }
        if double_speed {
            advanced.advance_double_speed(n, &mut audio[1]);
        } else {
            advanced.advance(n, &mut audio[1]);
        }
        assert!(
            bytemuck::bytes_of(&ticked) == bytemuck::bytes_of(&advanced),
            "advanced state differs after round {round} (n = {n})"
        );
        for reg in [0x76, 0x77] {
            assert_eq!(ticked.read_pcm(reg), eager.read_pcm(reg), "round {round}");
        }
        for apu in [&mut ticked, &mut advanced, &mut eager] {
            apu.div_apu_event(true);
        }
        let (reg, value) = random_write(&mut random);
        for apu in [&mut ticked, &mut advanced, &mut eager] {
            apu.write_register(reg, value, true);
        }
        let mut caught_up = ticked;
        caught_up.catch_up();
        assert!(
            bytemuck::bytes_of(&caught_up) == bytemuck::bytes_of(&eager),
            "caught-up state differs after round {round}"
        );
    }
    let samples = audio.map(|mut out| {
        let mut samples = Vec::new();
        out.drain_i16(&mut samples);
        samples
    });
    assert!(samples[0].len() > 48_000, "{} samples", samples[0].len());
    assert!(
        samples[0] == samples[1] && samples[0] == samples[2],
        "audio differs"
    );
}

/// Runs `seconds` and returns the samples of the last half second.
fn last_half_second(apu: &mut ApuState, seconds: u32) -> Vec<i16> {
    let mut audio = AudioOut::default();
    let mut clock = Clock { m_cycles: 0 };
    let mut samples = Vec::new();
    clock.run(apu, &mut audio, seconds * 1_048_576);
    audio.drain_i16(&mut samples);
    samples.split_off(samples.len() - 48_000)
}

#[test]
fn silent_channel_configurations_settle_to_exactly_zero() {
    // DACs on, routed, at full master volume, but every channel's digital output held at 0:
    // each DAC then outputs its full negative swing, a DC offset the capacitor must remove.
    let mut apu = powered_on();
    apu.write_register(0x24, 0x77, true);
    apu.write_register(0x25, 0xFF, true);
    apu.write_register(0x12, 0x08, true); // volume 0, envelope up with period 0: stays 0
    apu.write_register(0x14, 0x80, true);
    apu.write_register(0x17, 0x08, true);
    apu.write_register(0x19, 0x80, true);
    apu.write_register(0x1A, 0x80, true);
    apu.write_register(0x1C, 0x00, true); // wave output level: mute
    apu.write_register(0x1E, 0x80, true);
    apu.write_register(0x21, 0x08, true);
    apu.write_register(0x23, 0x80, true);
    assert_eq!(apu.read_register(0x26), 0xFF, "all four channels on");
    let tail = last_half_second(&mut apu, 2);
    assert!(
        tail.iter().all(|&s| s == 0),
        "non-zero output after settling"
    );

    // A channel that played and was then stopped by its length counter leaves its DAC on.
    let mut apu = powered_on();
    apu.write_register(0x24, 0x77, true);
    apu.write_register(0x25, 0x22, true);
    apu.write_register(0x16, 0x80 | 0x30, true);
    apu.write_register(0x17, 0xF0, true);
    apu.write_register(0x18, 0x00, true);
    apu.write_register(0x19, 0xC4, true);
    let tail = last_half_second(&mut apu, 2);
    assert_eq!(
        apu.read_register(0x26) & 2,
        0,
        "the length counter stopped it"
    );
    assert!(
        tail.iter().all(|&s| s == 0),
        "non-zero output after settling"
    );
}

#[test]
fn a_playing_square_is_audible_and_band_limited() {
    let mut apu = powered_on();
    apu.write_register(0x24, 0x77, true);
    apu.write_register(0x25, 0x11, true); // square 1 on both sides
    apu.write_register(0x11, 0x80, true); // 50% duty
    apu.write_register(0x12, 0xF0, true);
    apu.write_register(0x13, 0x00, true);
    apu.write_register(0x14, 0x87, true); // $700: 131072 / 256 = 512 Hz
    let tail = last_half_second(&mut apu, 1);
    let peak = tail.iter().map(|&s| i32::from(s).abs()).max().unwrap();
    assert!(peak > 4500 && peak < 7500, "peak {peak}");
    // Left and right are identical here.
    assert!(tail.chunks(2).all(|lr| lr[0] == lr[1]));
    // Zero crossings: 512 Hz gives about 1024 a second, 512 in half a second.
    let crossings = tail
        .chunks(2)
        .map(|lr| lr[0])
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| (w[0] < 0) != (w[1] < 0))
        .count();
    assert!(
        (500..=525).contains(&crossings),
        "{crossings} zero crossings"
    );
}

#[test]
fn noise_lfsr_periods_are_32767_and_127() {
    for (nr43, period) in [(0x00u8, 32_767usize), (0x08, 127)] {
        let mut apu = powered_on();
        let mut audio = AudioOut::default();
        apu.write_register(0x21, 0xF0, true);
        apu.write_register(0x22, nr43, true); // divisor code 0: one shift every 8 T-cycles
        apu.write_register(0x23, 0x80, true);
        let mut seen = Vec::new();
        for _ in 0..2 * period + 64 {
            // Two M-cycles are one shift.
            apu.tick(&mut audio);
            apu.tick(&mut audio);
            apu.catch_up();
            seen.push(apu.noise.lfsr & 0x7F);
        }
        let repeats = |p: usize| (0..seen.len() - p).all(|i| seen[i] == seen[i + p]);
        assert!(repeats(period), "NR43={nr43:02X}: not periodic in {period}");
        assert!(!repeats(period / 3), "NR43={nr43:02X}: a shorter period");
    }
}

#[test]
fn a_copy_taken_mid_run_continues_with_identical_samples() {
    let mut apu = powered_on();
    let mut audio = AudioOut::default();
    apu.write_register(0x24, 0x77, true);
    apu.write_register(0x25, 0xFF, true);
    apu.write_register(0x21, 0xF1, true);
    apu.write_register(0x22, 0x21, true);
    apu.write_register(0x23, 0x80, true);
    apu.write_register(0x12, 0xF2, true);
    apu.write_register(0x13, 0x40, true);
    apu.write_register(0x14, 0x86, true);
    let mut clock = Clock { m_cycles: 0 };
    clock.run(&mut apu, &mut audio, 123_457); // an arbitrary moment, mid-sample
    let mut copy = apu;
    let mut copy_clock = Clock {
        m_cycles: clock.m_cycles,
    };
    let (mut first, mut second) = (AudioOut::default(), AudioOut::default());
    clock.run(&mut apu, &mut first, 500_000);
    copy_clock.run(&mut copy, &mut second, 500_000);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    first.drain_i16(&mut a);
    second.drain_i16(&mut b);
    assert!(a.len() > 40_000);
    assert!(a == b);
    assert!(bytemuck::bytes_of(&apu) == bytemuck::bytes_of(&copy));
}

/// Power of `samples` (mono) at `frequency` Hz (Goertzel), 48 kHz sample rate.
fn power_at(samples: &[f64], frequency: f64) -> f64 {
    let coefficient = 2.0 * (2.0 * std::f64::consts::PI * frequency / 48_000.0).cos();
    let (mut s1, mut s2) = (0.0, 0.0);
    for (i, &x) in samples.iter().enumerate() {
        // A Hann window keeps leakage from the fundamental out of the other bins.
        let window =
            0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / samples.len() as f64).cos();
        let s0 = x * window + coefficient * s1 - s2;
        s2 = s1;
        s1 = s0;
    }
    s1 * s1 + s2 * s2 - coefficient * s1 * s2
}

#[test]
fn harmonics_above_nyquist_do_not_alias() {
    // An 8192 Hz square: its 5th and 7th harmonics (40,960 and 57,344 Hz) would fold back to
    // 7,040 and 9,344 Hz if the edges were merely sampled (at -14 and -17 dB).
    let mut apu = powered_on();
    apu.write_register(0x24, 0x77, true);
    apu.write_register(0x25, 0x11, true);
    apu.write_register(0x11, 0x80, true);
    apu.write_register(0x12, 0xF0, true);
    apu.write_register(0x13, 0xF0, true);
    apu.write_register(0x14, 0x87, true); // $7F0: 131072 / 16 = 8192 Hz
    let tail = last_half_second(&mut apu, 1);
    let left: Vec<f64> = tail.chunks(2).map(|lr| f64::from(lr[0])).collect();
    let fundamental = power_at(&left, 8192.0);
    for alias in [7040.0, 9344.0, 22_272.0, 5888.0] {
        // The 5th, 7th, 9th (73,728 Hz) and 11th (90,112 Hz) harmonics folded back.
        let ratio_db = 10.0 * (power_at(&left, alias) / fundamental).log10();
        println!("alias at {alias} Hz: {ratio_db:.1} dB");
        assert!(
            ratio_db < -50.0,
            "alias at {alias} Hz is only {ratio_db:.1} dB down"
        );
    }
}
