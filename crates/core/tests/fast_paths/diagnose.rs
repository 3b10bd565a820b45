//! Naming a difference: from the last states that matched, both cores run again one
//! `Core::step` at a time until the first instruction after which they differ. A trick
//! that only acts over long runs (a poll-loop skip needs room to skip) may not differ when
//! stepped; then the run's end is bisected instead, to the first M-cycle a run to which
//! ends in different states.

use crate::cases::Case;
use crate::oracle::Run;
use crate::tricks::{Trick, masked, same_state};
use backspin_core::state::State;
use backspin_core::state_file;
use backspin_core::{Core, disassemble};
use std::ops::Range;

/// Where a difference was found: the last matching states and the run after which the
/// two cores differed.
pub struct Start<'a> {
    pub case: &'a Case,
    pub trick: Trick,
    pub reference: &'a State,
    pub variant: &'a State,
    pub run: Run,
    pub seed: u64,
}

impl Start<'_> {
    /// The message for `what`, with everything needed to find and replay it.
    pub fn describe(&self, what: &str) -> String {
        format!(
            "fast path `{}` off differs from all on: {} ({:?}), frame {}, run {:?} from \
             M-cycle {} (seed {:#x}): {what}",
            self.trick.name(),
            self.case.name,
            self.case.model,
            self.reference.hw.frames,
            self.run,
            self.reference.hw.m_cycles,
            self.seed
        )
    }
}

/// Describes the first difference between `reference` and `variant` (which differ now)
/// after the run from `start`'s states: the instruction, its M-cycle and PC, and the first
/// differing field.
pub fn first_difference(reference: &Core, variant: &Core, start: Start) -> String {
    let message = locate(reference, variant, &start);
    format!("{message}{}", converges(reference, variant, &start))
}

/// Whether the two agree again after the next frame: then the trick left a different
/// representation of the same machine at this boundary, not a different future.
fn converges(reference: &Core, variant: &Core, start: &Start) -> String {
    let ignored = start.trick.ignored(true);
    let (mut a, mut b) = (reference.clone(), variant.clone());
    for frame in 1..=3 {
        a.run_frame();
        b.run_frame();
        if same_state(a.state(), b.state(), ignored.as_ref()) {
            return format!(" (they agree again {frame} frame(s) later)");
        }
    }
    " (and still differ 3 frames later)".to_string()
}

fn locate(reference: &Core, variant: &Core, start: &Start) -> String {
    // Steps and runs to a chosen M-cycle end between frames.
    let ignored = start.trick.ignored(false);
    let (mut a, mut b) = (reference.clone(), variant.clone());
    let end = reference.m_cycles().max(variant.m_cycles());
    a.load_state(start.reference);
    b.load_state(start.variant);
    // One step at a time, as long as the run went.
    while a.m_cycles() <= end && b.m_cycles() <= end {
        let pc = a.state().cpu.pc;
        let m_cycle = a.m_cycles();
        let instruction = instruction_at(&mut a, pc);
        a.step();
        b.step();
        if !same_state(a.state(), b.state(), ignored.as_ref()) {
            return start.describe(&format!(
                "stepping one instruction at a time, the first to differ is at M-cycle \
                 {m_cycle}, PC ${pc:04X} (`{instruction}`): first differing field {}",
                field(a.state(), b.state(), ignored.as_ref())
            ));
        }
    }
    // Stepped, the two agree: bisect the run's end instead.
    let differs_at = |target: u64| {
        let (mut a, mut b) = (reference.clone(), variant.clone());
        a.load_state(start.reference);
        b.load_state(start.variant);
        a.run_until(target);
        b.run_until(target);
        (!same_state(a.state(), b.state(), ignored.as_ref())).then_some((a, b))
    };
    let (mut good, mut bad) = (start.reference.hw.m_cycles, end);
    if differs_at(bad).is_none() {
        return start.describe(&format!(
            "the states differ after the run ({}), but neither stepping nor a run to \
             M-cycle {end} shows it again",
            field(
                reference.state(),
                variant.state(),
                start.trick.ignored(true).as_ref()
            )
        ));
    }
    while bad - good > 1 {
        let middle = good + (bad - good) / 2;
        if differs_at(middle).is_some() {
            bad = middle;
        } else {
            good = middle;
        }
    }
    let (mut a, b) = differs_at(bad).expect("differs at the bisected end");
    let pc = a.state().cpu.pc;
    let instruction = instruction_at(&mut a, pc);
    start.describe(&format!(
        "stepped one instruction at a time the two agree; runs to M-cycle {bad} first \
         differ (a run to {good} does not), stopping at M-cycle {}, PC ${pc:04X} \
         (`{instruction}`): first differing field {}",
        a.m_cycles(),
        field(a.state(), b.state(), ignored.as_ref())
    ))
}

/// The disassembled instruction at `pc`.
fn instruction_at(core: &mut Core, pc: u16) -> String {
    let bytes = [
        core.peek(pc),
        core.peek(pc.wrapping_add(1)),
        core.peek(pc.wrapping_add(2)),
    ];
    disassemble(&bytes, pc).0
}

/// The dotted name of the first field where the states differ outside `ignored`.
fn field(a: &State, b: &State, ignored: Option<&Range<usize>>) -> String {
    state_file::first_difference(&masked(a, ignored), &masked(b, ignored))
        .unwrap_or_else(|| "(none outside the ignored bytes)".to_string())
}
