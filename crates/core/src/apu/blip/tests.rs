use super::*;
use backspin_test_support::SplitMix64;

#[test]
fn kernel_rows_sum_to_one() {
    for row in STEP.iter() {
        assert_eq!(row.iter().sum::<i32>(), 1 << ONE_BITS);
    }
}

/// A deterministic pseudo-random sequence for the randomized tests.
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = SplitMix64::new(seed);
    move || rng.next_u64()
}

/// Queued centre steps give the same samples as steps spread at once, also when
/// steps come faster than the queue holds (the oldest spill into the ring) and for a
/// delta too large to queue.
#[test]
fn queued_steps_sound_like_steps_spread_at_once() {
    let mut queued = SynthState::zeroed();
    let mut eager = SynthState::zeroed();
    let (mut out_queued, mut out_eager) = (AudioOut::default(), AudioOut::default());
    let mut next = random(0x2545_f491_4f6c_dd1du64);
    for round in 0..20_000u32 {
        let r = next();
        let t_cycles = if round % 1000 < 300 {
            r as u32 % 8
        } else {
            r as u32 % 400
        };
        let level = match round % 5000 {
            0 => [900_000, 900_000], // too large to queue
            _ => {
                let centre = (r >> 32) as i32 % 19_200;
                if r & 0x3F == 0 {
                    [centre, -centre]
                } else {
                    [centre, centre]
                }
            }
        };
        for (synth, audio) in [(&mut queued, &mut out_queued), (&mut eager, &mut out_eager)] {
            synth.advance(t_cycles);
            synth.set_level(level);
            if round % 97 == 0 {
                synth.emit(audio);
                synth.rotate_head_to_zero(false);
            }
        }
        let pending = eager.centre_step_count as usize;
        for i in 0..pending {
            eager.spread_centre_step(eager.centre_steps[i]);
        }
        eager.centre_steps = [0; STEP_QUEUE];
        eager.centre_step_count = 0;
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    out_queued.drain_i16(&mut a);
    out_eager.drain_i16(&mut b);
    assert!(a.len() > 10_000);
    assert_eq!(a, b);
}

/// Held steps (many per commit, and alternating trains) leave the state byte for byte
/// as reporting each change on its own does, across flushes and corner cases: a queue
/// that overflows mid-train, changes too large to queue, one-sided changes.
#[test]
fn held_steps_leave_the_state_of_changes_reported_one_by_one() {
    let mut held = SynthState::zeroed();
    let mut single = SynthState::zeroed();
    let (mut out_held, mut out_single) = (AudioOut::default(), AudioOut::default());
    let mut next = random(0x9E37_79B9_7F4A_7C15u64);
    for round in 0..3_000u32 {
        let mut steps = held.steps();
        for _ in 0..next() % 12 {
            let r = next();
            let t_cycles = (r % 48) as u32;
            match (r >> 8) % 8 {
                0 => {
                    // A train of alternating centre changes.
                    let mask = r.rotate_left(13) & 0x00FF_FFFF_FFFF_FFFF;
                    let spacing = 1 + (r >> 48) as u32 % 8;
                    let delta = ((r >> 52) as i32 % 4000) * if r & 1 == 0 { 1 } else { 40 };
                    let end = t_cycles + 56 * spacing;
                    steps.alternating_centre_changes(t_cycles, spacing, mask, delta, end);
                    let (mut mask, mut delta, mut now) = (mask, delta, 0);
                    while mask != 0 {
                        let when = t_cycles + mask.trailing_zeros() * spacing;
                        mask &= mask - 1;
                        single.advance(when - now);
                        now = when;
                        let level = single.level().map(|side| side.wrapping_add(delta));
                        single.set_level(level);
                        delta = delta.wrapping_neg();
                    }
                    single.advance(end - now);
                }
                code => {
                    let centre = (r >> 32) as i32 % 19_200;
                    let level = match code {
                        1 => [centre, -centre],
                        2 => [900_000, 900_000], // too large to queue
                        _ => [centre, centre],
                    };
                    steps.advance(t_cycles);
                    steps.set_level(level);
                    single.advance(t_cycles);
                    single.set_level(level);
                }
            }
        }
        drop(steps);
        assert!(
            bytemuck::bytes_of(&held) == bytemuck::bytes_of(&single),
            "state differs after round {round}"
        );
        if round % 3 == 0 {
            // The one trusts what `emit` found, the other looks again: the same rings (the
            // changes include one-sided ones).
            for (synth, audio, trust) in [
                (&mut held, &mut out_held, true),
                (&mut single, &mut out_single, false),
            ] {
                let stereo_empty = synth.emit(audio);
                synth.rotate_head_to_zero(stereo_empty && trust);
            }
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    out_held.drain_i16(&mut a);
    out_single.drain_i16(&mut b);
    assert!(a.len() > 10_000);
    assert!(a == b);
}

/// The vector spreads add what the plain loops add, for every row and tap and for
/// deltas of every size (the high part of a large one included).
#[test]
fn vector_spreads_add_what_the_plain_loops_add() {
    let mut next = random(0x1405_7b7e_f767_814fu64);
    let deltas = [
        1,
        -1,
        i32::from(i16::MAX),
        -i32::from(i16::MAX),
        9_600,
        -38_400,
    ];
    for round in 0..2_000 {
        let r = next();
        let delta = if round < deltas.len() {
            deltas[round]
        } else {
            (r >> 32) as i32 >> (r % 24)
        };
        let start: [i32; ALIGNED_WINDOW] = std::array::from_fn(|_| next() as i32);
        let row = round % (4 * PHASES);
        if fits_i16_both_ways(delta) {
            let (mut vector, mut plain) = (start, start);
            add_scaled_window(&mut vector, row, delta as i16);
            add_scaled_window_plain(&mut plain, row, delta as i16);
            assert_eq!(vector, plain, "row {row}, delta {delta}");
        }
        let (phase, first_tap) = (round % PHASES, (r >> 8) as usize % TAPS);
        let (mut vector, mut plain) = (start, start);
        add_scaled_from_tap(&mut vector[..TAPS], phase, first_tap, delta);
        add_scaled_from_tap_plain(&mut plain[..TAPS], phase, first_tap, delta);
        assert_eq!(
            vector, plain,
            "phase {phase}, tap {first_tap}, delta {delta}"
        );
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            let mut wide = start;
            // SAFETY: checked just above.
            unsafe { add_scaled_from_tap_avx2(&mut wide[..TAPS], phase, first_tap, delta) };
            assert_eq!(
                wide, plain,
                "AVX2: phase {phase}, tap {first_tap}, delta {delta}"
            );
        }
    }
}

/// Held steps spread with AVX2 add what the SSE2 (or plain) spread adds, at every slot of
/// the ring (wrapping ones included) and every phase.
#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_held_spreads_add_what_the_narrow_ones_add() {
    if !has_avx2() {
        println!("no AVX2 here: nothing to compare");
        return;
    }
    let mut next = random(0x5EED_A4C2_0000_0001u64);
    for round in 0..500u32 {
        let mut start = SynthState::zeroed();
        start.head = round % RING as u32;
        for slot in start.centre_ring.iter_mut() {
            *slot = next() as i32;
        }
        // Scattered steps, or (every other round) a train a fraction of a sample apart, as
        // the noise channel makes: pairs in one window, and windows at the ring's end.
        let mut offset_ticks = (next() as u32) % LAG_LIMIT_TICKS;
        let steps: Vec<HeldStep> = (0..48)
            .map(|_| {
                let r = next();
                offset_ticks = if round % 2 == 0 {
                    (r as u32) % LAG_LIMIT_TICKS
                } else {
                    (offset_ticks + (r as u32) % 20_000) % LAG_LIMIT_TICKS
                };
                let delta = match (r >> 24) % 8 {
                    0 => i32::from(i16::MAX),
                    1 => -i32::from(i16::MAX),
                    _ => ((r >> 32) as i32) % i32::from(i16::MAX),
                };
                HeldStep {
                    offset_ticks,
                    delta,
                }
            })
            .collect();
        // Held steps come in time order (which the AVX2 spread relies on).
        let mut steps = steps;
        steps.sort_by_key(|step| step.offset_ticks);
        let (mut wide, mut narrow) = (start, start);
        narrow.spread_held_steps::<false>(&steps);
        steps.push(HeldStep::END);
        // SAFETY: checked above.
        unsafe { wide.spread_held_steps_avx2(&steps) };
        assert!(wide == narrow, "round {round}");
    }
}

/// The capacitor's kept share, computed with a bias known before the multiply, is the
/// truncating division it stands for, over the whole range of `passed`.
#[test]
fn highpass_kept_truncates_like_the_division() {
    let division = |passed: i64| passed * HIGHPASS_KEEP_Q16 / 65536;
    let extremes = [i64::from(i32::MIN) - i64::from(i32::MAX), 0, 1, -1];
    let edges = (0..4 * 65536).flat_map(|k: i64| [k, -k]);
    let mut next = random(0x5851_f42d_4c95_7f2du64);
    let spread = (0..200_000).map(|_| (next() as i64) >> 31);
    for passed in extremes.into_iter().chain(edges).chain(spread) {
        assert_eq!(highpass_kept(passed), division(passed), "passed {passed}");
    }
    let full = i64::from(i32::MAX) - i64::from(i32::MIN);
    assert_eq!(highpass_kept(full), division(full));
}

#[test]
fn the_sample_clock_is_48_khz() {
    assert_eq!(
        4_194_304u64 * u64::from(TICKS_PER_T_CYCLE),
        48_000u64 * u64::from(TICKS_PER_SAMPLE)
    );
}

#[test]
fn a_step_settles_to_its_level_then_the_highpass_drains_it() {
    let mut synth = SynthState::zeroed();
    let mut audio = AudioOut::default();
    fn run(synth: &mut SynthState, audio: &mut AudioOut, t_cycles: u32) {
        for _ in 0..t_cycles / 2048 {
            synth.advance(2048);
            synth.emit(audio);
        }
    }
    synth.set_level([10_000, -10_000]);
    run(&mut synth, &mut audio, 4_194_304 / 10); // 0.1 s
    let mut samples = Vec::new();
    audio.drain_i16(&mut samples);
    // The step arrives after the kernel's 8-sample delay, at nearly full height.
    let peak = samples.chunks(2).map(|s| s[0]).max().unwrap();
    assert!(peak > 9_900 && peak < 11_000, "peak {peak}");
    assert_eq!(synth.integrators()[0] >> ONE_BITS, 10_000);
    assert_eq!(synth.integrators()[1] >> ONE_BITS, -10_000);
    // Later, the capacitor has charged to the DC level and the output is exactly zero.
    run(&mut synth, &mut audio, 4_194_304);
    audio.drain_i16(&mut samples);
    assert_eq!(samples[samples.len() - 2..], [0, 0]);
}

/// The vector passes (SSE2, and AVX2 where the CPU has it) that turn the high-pass chain's
/// differences into samples give what `highpass_sample` gives, over the whole range a
/// difference of two `i32`s takes.
#[test]
fn centre_samples_match_highpass_sample() {
    let full = i64::from(i32::MAX) - i64::from(i32::MIN);
    let limit = 32_768i64 << ONE_BITS;
    let mut values = vec![full, -full, 0, 1, -1, limit, -limit, limit - 1, 1 - limit];
    values.extend((0..40_000).flat_map(|k: i64| [k, -k, limit + k - 20_000, k - limit]));
    let mut next = random(0x2f1e_3d4c_5b6a_7988u64);
    values.extend((0..100_000).map(|_| (next() as i64) >> 31));
    for length in [0, 1, 7, 8, 9, 17, 94] {
        for chunk in values.chunks(length.max(1)).take(2_000) {
            let chunk = &chunk[..chunk.len().min(length)];
            let mut fast = vec![0i16; 2 * chunk.len()];
            let mut plain = vec![1i16; 2 * chunk.len()];
            centre_samples(chunk, &mut fast);
            centre_samples_plain(chunk, &mut plain);
            assert_eq!(fast, plain, "{chunk:?}");
            #[cfg(target_arch = "x86_64")]
            if has_avx2() {
                let mut wide = vec![2i16; 2 * chunk.len()];
                // SAFETY: the CPU has AVX2.
                unsafe { centre_samples_avx2(chunk, &mut wide) };
                assert_eq!(wide, plain, "AVX2: {chunk:?}");
            }
        }
    }
}

/// A batch of centred sound (the chain carried as the integrator's lead over the charge,
/// four samples a turn) ends as sample-by-sample `highpass` does, with any values in the
/// ring, the integrator and the capacitor, however large, with AVX2 or without.
#[test]
fn centred_batches_match_highpass_sample_by_sample() {
    let mut next = random(0x7a3c_91e5_0d4b_2f68u64);
    for round in 0..3_000 {
        let mut synth = SynthState::zeroed();
        let wide = round % 3 == 0;
        let mut value = || {
            let r = next();
            if wide { r as i32 } else { (r as i32) >> 12 }
        };
        for slot in synth.centre_ring.iter_mut() {
            *slot = value();
        }
        let (integrator, charge) = (value(), value());
        synth.set_integrators([integrator; 2]);
        synth.set_highpass_charges([charge; 2]);
        synth.head = next() as u32 % RING as u32;
        let n = 1 + next() as usize % BATCH;
        synth.offset_ticks = (n as u32) << TICKS_PER_SAMPLE_BITS;
        // The reference: each sample on its own, through `highpass`.
        let (mut expected, mut input, mut held) = (Vec::new(), integrator, charge);
        for k in 0..n {
            let slot = synth.centre_ring[(synth.head as usize + k) & (RING - 1)];
            input = input.wrapping_add(slot);
            let sample;
            (held, sample) = highpass(input, held);
            expected.extend([sample, sample]);
        }
        // Without AVX2 too (`finish_samples` takes it where the CPU has it).
        let mut plain = synth;
        let mut out = vec![0i16; 2 * n];
        assert!(synth.finish_samples(&mut out), "a centred batch");
        assert_eq!(out, expected, "round {round}");
        assert_eq!(synth.integrators(), [input; 2]);
        assert_eq!(synth.highpass_charges(), [held; 2]);
        let mut plain_out = vec![0i16; 2 * n];
        assert!(plain.finish_samples_with::<false>(&mut plain_out));
        assert_eq!(plain_out, expected, "round {round}, without AVX2");
        assert_eq!(plain, synth, "round {round}, without AVX2");
    }
}
