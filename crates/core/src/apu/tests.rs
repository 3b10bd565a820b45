//! Oracles for the APU's shortcuts and the host buffer.

use super::*;
use crate::apu::audio_out::MAX_BUFFERED_SAMPLES;
use backspin_test_support::{InputScript, SplitMix64};
use std::cell::Cell;

thread_local! {
    /// While set, this thread's APUs take their plain paths (`run_reference`, one event and
    /// one full remix at a time): the oracle for the shortcuts inside the whole machine.
    static PLAIN_PATHS: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread's APUs take their plain paths (see `PLAIN_PATHS`).
pub(super) fn plain_paths() -> bool {
    PLAIN_PATHS.get()
}

impl ApuState {
    /// `catch_up` through the plain event loop.
    fn catch_up_reference(&mut self) {
        let plain = PLAIN_PATHS.replace(true);
        self.catch_up_to(self.apu_cycles_elapsed(), true);
        PLAIN_PATHS.set(plain);
    }
}

/// Stereo frames per batch in `an_undrained_buffer_drops_its_older_half` (up to twice).
const BATCH_FRAMES_MAX: u64 = 400;

/// A host that never drains keeps what it always kept: before each stereo frame that
/// would overflow the buffer, the older half is dropped.
#[test]
fn an_undrained_buffer_drops_its_older_half() {
    let mut audio = AudioOut::default();
    let mut model: Vec<i16> = Vec::new();
    let mut random = SplitMix64::new(0x00A9_0004);
    let mut next_sample = 0i16;
    for _ in 0..5_000 {
        let frames = random.below(2 * BATCH_FRAMES_MAX) as usize;
        let batch: Vec<i16> = (0..2 * frames)
            .map(|_| {
                next_sample = next_sample.wrapping_add(1);
                next_sample
            })
            .collect();
        audio.push_interleaved(&batch);
        for pair in batch.chunks(2) {
            if model.len() >= MAX_BUFFERED_SAMPLES {
                model.drain(..MAX_BUFFERED_SAMPLES / 2);
            }
            model.extend_from_slice(pair);
        }
        if random.below(1000) == 0 {
            let mut drained = Vec::new();
            audio.drain_i16(&mut drained);
            assert!(drained == model);
            model.clear();
        }
    }
    let mut drained = Vec::new();
    audio.drain_i16(&mut drained);
    assert!(drained.len() > MAX_BUFFERED_SAMPLES / 2);
    assert!(drained == model);
}

#[test]
fn lfsr_chunks_equal_single_shifts() {
    for start in 0..=u16::MAX {
        let mut noise = ToneState::zeroed();
        noise.lfsr = start;
        for shifts in 1..=14 {
            shift_lfsr(&mut noise, 0x00);
            assert_eq!(
                shift_lfsr_15_bit(start, shifts),
                noise.lfsr,
                "{start:#06X} by {shifts}"
            );
        }
    }
}

/// The shortcuts of `run` (silent channels skipped in closed form, incremental mixing)
/// change nothing: same state, same samples as the plain loop run after every M-cycle.
#[test]
fn run_matches_the_reference_loop() {
    let seed = 0x00A9_0003;
    println!("seed {seed:#x}");
    let mut random = SplitMix64::new(seed);
    let mut fast = ApuState::zeroed();
    let mut reference = ApuState::zeroed();
    fast.write_register(0x26, 0x80, true);
    reference.write_register(0x26, 0x80, true);
    let (mut fast_audio, mut reference_audio) = (AudioOut::default(), AudioOut::default());
    let mut m_cycles = 0u64;
    for round in 0..4000 {
        let gap = match random.below(3) {
            0 => random.below(8),
            1 => random.below(200),
            _ => random.below(4000),
        };
        for _ in 0..gap {
            m_cycles += 1;
            fast.tick(&mut fast_audio);
            reference.catch_up_reference();
            reference.tick(&mut reference_audio);
            reference.catch_up_reference();
            if m_cycles.is_multiple_of(2048) {
                fast.div_apu_event(true);
                reference.div_apu_event(true);
            }
        }
        // Mostly audible settings: volume, routing and master volume high.
        let reg = match random.below(12) {
            0 => 0x14 + 5 * random.below(4) as u8,
            1 => 0x30 + random.below(16) as u8,
            2 => 0x24,
            3 => 0x25,
            _ => 0x10 + random.below(0x16) as u8,
        };
        let mut value = random.next_u64() as u8;
        if matches!(reg, 0x12 | 0x17 | 0x21) && random.below(4) != 0 {
            value |= 0xF0;
        }
        if reg == 0x25 && random.below(2) == 0 {
            value = 0xFF;
        }
        fast.write_register(reg, value, true);
        reference.write_register(reg, value, true);
        let mut caught_up = fast;
        caught_up.catch_up();
        assert!(
            bytemuck::bytes_of(&caught_up) == bytemuck::bytes_of(&reference),
            "state differs after round {round} (write {value:02X} to FF{reg:02X})"
        );
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    fast_audio.drain_i16(&mut a);
    reference_audio.drain_i16(&mut b);
    assert!(a == b, "audio differs");
    assert!(a.iter().filter(|&&s| s != 0).count() > a.len() / 2);
}

/// Frames each ROM runs in `roms_sound_the_same_on_the_plain_paths`.
const ORACLE_FRAMES: u32 = 300;

/// The whole machine on ROMs that use sound, every workload three times: the APU's shortcuts
/// (and the synthesizer's batches) against its plain paths, and a core that synthesizes no
/// sound (every channel in closed form) against both. State bytes and the audio produced
/// must be identical after every frame, but the silent core's synthesizer, which stays as it
/// was at power-on. Uses the shared test ROMs; skips with a reason when they are absent.
#[test]
fn roms_sound_the_same_on_the_plain_paths() {
    use crate::{Buttons, Core, Model, Options, Rom};
    let mut workloads = vec![
        ("homebrew/gejmboj.gb".to_string(), Model::Dmg),
        ("homebrew/opus5.gb".to_string(), Model::Dmg),
        ("homebrew/pocket.gb".to_string(), Model::Dmg),
        ("homebrew/20y.gb".to_string(), Model::Dmg),
        ("homebrew/shocklobster.gb".to_string(), Model::Dmg),
        ("homebrew/gb8.gb".to_string(), Model::Cgb),
    ];
    for number in [
        "03-trigger",
        "09-wave_read_while_on",
        "12-wave_write_while_on",
    ] {
        workloads.push((format!("blargg/dmg_sound/{number}.gb"), Model::Dmg));
    }
    for (name, model) in workloads {
        let bytes = match backspin_harness::read_test_rom(&name) {
            Ok(bytes) => bytes,
            Err(reason) => {
                backspin_test_support::skip_or_fail(format!("{name}: {reason}"));
                continue;
            }
        };
        let power_on = || {
            let rom = Rom::from_bytes(bytes.clone()).expect("shared test ROM parses");
            Core::new(
                rom,
                Options {
                    model,
                    ..Options::default()
                },
            )
        };
        let (mut fast, mut plain, mut silent) = (power_on(), power_on(), power_on());
        silent.set_fast_paths(crate::FastPaths {
            audio_synthesis: false,
            ..crate::FastPaths::ALL
        });
        let silent_synth = silent.state().hw.apu.synth;
        let mut script = InputScript::new(0x5EED_7ACE);
        let (mut fast_audio, mut plain_audio) = (Vec::new(), Vec::new());
        let mut loud = 0;
        for frame in 0..ORACLE_FRAMES {
            let buttons = Buttons(script.next_frame());
            fast.set_buttons(buttons);
            plain.set_buttons(buttons);
            silent.set_buttons(buttons);
            fast.run_frame();
            silent.run_frame();
            PLAIN_PATHS.set(true);
            plain.run_frame();
            PLAIN_PATHS.set(false);
            assert!(
                fast.state().as_bytes() == plain.state().as_bytes(),
                "{name}: state differs after frame {frame}"
            );
            let mut heard = *plain.state();
            heard.hw.apu.synth = silent_synth;
            assert!(
                silent.state().as_bytes() == heard.as_bytes(),
                "{name}: making no sound changed the state in frame {frame}"
            );
            fast_audio.clear();
            plain_audio.clear();
            fast.output().audio.drain_i16(&mut fast_audio);
            plain.output().audio.drain_i16(&mut plain_audio);
            assert!(
                fast_audio == plain_audio,
                "{name}: audio differs in frame {frame}"
            );
            loud += fast_audio.iter().filter(|&&sample| sample != 0).count();
        }
        println!("{name}: {loud} non-zero samples");
    }
}

/// A wave channel counting in the background (triggered with its DAC off, then the DAC on)
/// ends in the same state caught up once or after every APU cycle: a reload at the end of
/// a catch-up leaves its read due in the next one (`wave::run_background_wave`).
#[test]
fn background_wave_reads_the_same_in_pieces() {
    for frequency in [0x7FFu16, 0x7FE, 0x7F8, 0x7A3] {
        let mut audio = AudioOut::default();
        let mut apu = ApuState::zeroed();
        apu.cgb = 1;
        apu.write_register(0x26, 0x80, true);
        for index in 0..16u8 {
            apu.write_register(0x30 + index, index << 4 | (15 - index), true);
        }
        apu.write_register(0x1A, 0x00, true);
        apu.write_register(0x1D, frequency as u8, true);
        apu.write_register(0x1E, 0x80 | (frequency >> 8) as u8, true);
        apu.write_register(0x1A, 0x80, true);
        assert!(apu.wave_counts_in_background());
        let mut whole = apu;
        let mut pieces = apu;
        for cycle in 0..200 {
            whole.tick_double_speed(&mut audio);
            pieces.tick_double_speed(&mut audio);
            pieces.catch_up();
            if cycle % 37 == 36 {
                whole.catch_up();
                assert_eq!(
                    whole, pieces,
                    "frequency {frequency:#05X}, APU cycle {cycle}"
                );
            }
        }
        // A read landed: the buffer holds the byte at the bus address noted (none: 0).
        assert_eq!(
            pieces.wave.sample_buffer, 0x0F,
            "frequency {frequency:#05X}"
        );
        assert!(pieces.wave.active == 0);
    }
}

/// `mix`'s one multiply a side gives what the per-channel weights give, on random registers
/// and channel states (every DAC, route, volume and output).
#[test]
fn mix_sums_as_the_weights_do() {
    let mut random = SplitMix64::new(0x00A9_0005);
    for _ in 0..100_000 {
        let mut apu = ApuState::zeroed();
        for reg in [
            reg::NR11,
            reg::NR12,
            reg::NR21,
            reg::NR22,
            reg::NR30,
            reg::NR32,
        ] {
            apu.regs[reg] = random.next_u64() as u8;
        }
        for reg in [reg::NR42, reg::NR50, reg::NR51] {
            apu.regs[reg] = random.next_u64() as u8;
        }
        for tone in [&mut apu.square1, &mut apu.square2, &mut apu.noise] {
            tone.active = random.below(2) as u8;
            tone.volume = random.next_u64() as u8;
            tone.position = random.next_u64() as u8;
            tone.lfsr = random.next_u64() as u16;
        }
        apu.wave.active = random.below(2) as u8;
        apu.wave.position = random.next_u64() as u8;
        apu.wave.sample_buffer = random.next_u64() as u8;
        let weights = apu.mix_weights();
        let digital = apu.digital_outputs();
        let mut level = [0i32; 2];
        for channel in 0..4 {
            let analog = 2 * i32::from(digital[channel]) - 15;
            level[0] += weights[channel][0] * analog;
            level[1] += weights[channel][1] * analog;
        }
        assert_eq!(apu.mix(), level, "regs {:02X?}", apu.regs);
    }
}
