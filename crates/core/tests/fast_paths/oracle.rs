//! One ROM on one model, run by a core with every trick on (the reference) and, in
//! lockstep, one core per trick with that trick off, all fed the same buttons. After every
//! run (whole frames and runs to random M-cycles) the states must be equal byte for byte
//! (outside what the trick changes by design), and so must the pictures of drawn frames
//! and the sound.

use crate::cases::Case;
use crate::diagnose::{Start, first_difference};
use crate::tricks::{Trick, masked, same_state};
use backspin_core::state::State;
use backspin_core::{Buttons, Core, Events, FastPath, FastPaths, M_CYCLES_PER_FRAME, Options, Rom};
use backspin_test_support::SplitMix64;

/// What the oracle compared, so that a test can check it did not pass by comparing nothing.
#[derive(Default)]
pub struct Tally {
    /// States compared, per trick in `tricks()` order.
    pub states: Vec<u64>,
    /// Drawn frames whose pictures were compared.
    pub pictures: u64,
    /// Audio samples compared.
    pub samples: u64,
    /// ROMs run.
    pub roms: u64,
}

/// How the cores run between two comparisons.
#[derive(Clone, Copy, Debug)]
pub enum Run {
    /// `run_frame`.
    Frame,
    /// `run_until` this M-cycle.
    Until(u64),
}

impl Run {
    pub fn apply(self, core: &mut Core) -> Events {
        match self {
            Run::Frame => core.run_frame(),
            Run::Until(target) => core.run_until(target),
        }
    }
}

pub fn power_on(case: &Case) -> Core {
    Core::new(
        Rom::from_bytes(case.bytes.clone()).expect("test ROM parses"),
        Options {
            model: case.model,
            ..Options::default()
        },
    )
}

struct Variant {
    trick: Trick,
    core: Core,
    /// The state before the current run.
    before: Box<State>,
    audio: Vec<i16>,
}

/// Runs `case` for `frames` frames' worth of M-cycles against every trick in `tricks`.
/// `Err` describes the first difference, down to the instruction where one can be found.
pub fn check(
    case: &Case,
    tricks: &[Trick],
    frames: u64,
    seed: u64,
    tally: &mut Tally,
) -> Result<(), String> {
    let mut rng = SplitMix64::new(seed);
    let mut reference = power_on(case);
    let mut reference_before: Box<State> = Box::new(*reference.state());
    let mut reference_audio = Vec::new();
    let mut variants: Vec<Variant> = tricks
        .iter()
        .map(|&trick| {
            let mut core = power_on(case);
            trick.switch_off(&mut core);
            Variant {
                trick,
                before: Box::new(*core.state()),
                core,
                audio: Vec::new(),
            }
        })
        .collect();
    // Every trick off: on a difference, the cores that still agree with it name the suspect.
    let mut plain = power_on(case);
    plain.set_fast_paths(FastPaths::NONE);
    tally.states.resize(tricks.len(), 0);
    tally.roms += 1;
    let end = frames * M_CYCLES_PER_FRAME;
    let mut buttons = 0u8;
    while reference.m_cycles() < end {
        if rng.below(16) == 0 {
            buttons = rng.next_u64() as u8;
        }
        let run = match rng.below(4) {
            0 | 1 => Run::Frame,
            // Short runs stop inside DMAs, skips and deferred windows; long ones cross frames.
            2 => Run::Until(reference.m_cycles() + rng.range(1, 512)),
            _ => Run::Until(reference.m_cycles() + rng.range(1, 2 * M_CYCLES_PER_FRAME)),
        };
        reference.set_buttons(Buttons(buttons));
        *reference_before = *reference.state();
        let events = run.apply(&mut reference);
        reference_audio.clear();
        reference.output().audio.drain_i16(&mut reference_audio);
        plain.set_buttons(Buttons(buttons));
        run.apply(&mut plain);
        // A run to an M-cycle may pass a frame's end but stops inside the next frame.
        let at_frame = matches!(run, Run::Frame) && events.contains(Events::FRAME_READY);
        let mut failure = None;
        let mut states_differ = false;
        for (index, variant) in variants.iter_mut().enumerate() {
            variant.core.set_buttons(Buttons(buttons));
            *variant.before = *variant.core.state();
            let variant_events = run.apply(&mut variant.core);
            variant.audio.clear();
            variant.core.output().audio.drain_i16(&mut variant.audio);
            if failure.is_some() {
                // Still run, so that every core stands at the same point for `suspects`.
                continue;
            }
            let trick = variant.trick;
            let place = || Start {
                case,
                trick,
                reference: &reference_before,
                variant: &variant.before,
                run,
                seed,
            };
            let ignored = trick.ignored(at_frame);
            if !same_state(reference.state(), variant.core.state(), ignored.as_ref()) {
                failure = Some(first_difference(&reference, &variant.core, place()));
                states_differ = true;
            } else if events != variant_events {
                failure = Some(place().describe(&format!(
                    "the run ended with events {events:?} against {variant_events:?}"
                )));
            } else if let Some(pixel) = (trick.draws() && at_frame)
                .then(|| first_pixel_difference(&reference, &variant.core))
                .flatten()
            {
                failure = Some(place().describe(&format!(
                    "the pictures of frame {} differ at pixel ({}, {})",
                    reference.state().hw.frames,
                    pixel % 160,
                    pixel / 160
                )));
            } else if trick.synthesizes() && reference_audio != variant.audio {
                failure = Some(place().describe(&format!(
                    "the sound differs: {} samples against {}",
                    reference_audio.len(),
                    variant.audio.len()
                )));
            } else {
                tally.states[index] += 1;
                tally.pictures += u64::from(trick.draws() && at_frame);
                if trick.synthesizes() {
                    tally.samples += reference_audio.len() as u64;
                }
            }
        }
        if let Some(message) = failure {
            // The plain core draws no picture and makes no sound: it judges states only.
            if !states_differ {
                return Err(message);
            }
            // The verdict first: with several cores off the plain path, the first one to
            // differ need not be the one whose trick is wrong.
            return Err(format!(
                "{}\n{message}",
                suspects(&reference, &variants, &plain, at_frame)
            ));
        }
    }
    Ok(())
}

/// Which trick is wrong, judged by the core with every trick off after the same run: a
/// broken trick leaves every core that uses it off the plain path, so the core with only
/// that trick off is the one that still agrees with it.
fn suspects(reference: &Core, variants: &[Variant], plain: &Core, at_frame: bool) -> String {
    let agrees = |core: &Core| same_as_plain(core.state(), plain.state(), at_frame);
    if agrees(reference) {
        return "every trick on agrees with every trick off here: the trick switched off \
                above takes the wrong path"
            .to_string();
    }
    let names: Vec<&str> = variants
        .iter()
        .filter(|variant| agrees(&variant.core))
        .map(|variant| variant.trick.name())
        .collect();
    if names.is_empty() {
        "no core with one trick off agrees with every trick off: more than one trick is \
         wrong, or they depend on each other"
            .to_string()
    } else {
        format!(
            "broken fast path: `{}` (the core with it off agrees with every trick off; every \
             core with it on does not)",
            names.join("`, `")
        )
    }
}

/// Whether `state` equals the plain core's outside what differs by design: the
/// synthesizer (synthesis off) and, between frames, the PPU (lazy mode 3 off).
fn same_as_plain(state: &State, plain: &State, at_frame: bool) -> bool {
    let mut ignored = vec![Trick(FastPath::AudioSynthesis).ignored(at_frame)];
    ignored.push(Trick(FastPath::LazyMode3).ignored(at_frame));
    let (mut a, mut b) = (Box::new(*state), Box::new(*plain));
    for range in ignored.iter().flatten() {
        a = masked(&a, Some(range));
        b = masked(&b, Some(range));
    }
    a.as_bytes() == b.as_bytes()
}

/// The first pixel (row-major index) where the two cores' pictures differ: shades, and
/// colours on a CGB.
fn first_pixel_difference(a: &Core, b: &Core) -> Option<usize> {
    let shade = a.frame().iter().zip(b.frame()).position(|(x, y)| x != y);
    let colour = a
        .frame_rgb()
        .iter()
        .zip(b.frame_rgb())
        .position(|(x, y)| x != y);
    match (shade, colour) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}
