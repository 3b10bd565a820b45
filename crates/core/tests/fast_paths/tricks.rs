//! The speed tricks the oracle switches off one at a time, by name, and what each may
//! change by design.

use backspin_core::state::{ApuState, HwState, PpuState, State, SynthState};
use backspin_core::{Core, FastPath, FastPaths};
use std::mem::{offset_of, size_of};
use std::ops::Range;

/// One speed trick of the core ([`FastPath`]), switched off alone against all of them on.
#[derive(Clone, Copy)]
pub struct Trick(pub FastPath);

impl Trick {
    /// Its name, as `FastPaths` spells the field.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// A core with this trick off and every other one on.
    pub fn switch_off(self, core: &mut Core) {
        core.set_fast_paths(FastPaths::ALL.with(self.0, false));
    }

    /// Whether the picture is compared: not when the trick is drawing itself.
    pub fn draws(self) -> bool {
        self.0 != FastPath::Drawing
    }

    /// Whether the sound is compared, and the synthesizer's bytes of `State`: not when
    /// the trick is synthesis itself (off, the synthesizer keeps its old state by design).
    pub fn synthesizes(self) -> bool {
        self.0 != FastPath::AudioSynthesis
    }

    /// The bytes of `State` this trick, switched off, leaves different by design after a
    /// run that ended with a frame (`at_frame`) or anywhere else. Lazy mode 3 lets the
    /// PPU's pixel pipeline lag behind the clock inside mode 3 (`fifo_lag`) and catch up
    /// on the next access or the line's end: a run that stops there holds an equivalent
    /// but different PPU (the same future: it agrees again by the line's end), so between
    /// frames the PPU is left out and compared at every frame.
    pub fn ignored(self, at_frame: bool) -> Option<Range<usize>> {
        match self.0 {
            FastPath::AudioSynthesis => Some(synthesizer_bytes()),
            FastPath::LazyMode3 if !at_frame => Some(ppu_bytes()),
            _ => None,
        }
    }
}

/// Every trick the core has.
pub fn tricks() -> Vec<Trick> {
    FastPath::ALL.into_iter().map(Trick).collect()
}

/// Where the PPU (`hw.ppu`) lies in `State`'s bytes.
fn ppu_bytes() -> Range<usize> {
    let start = offset_of!(State, hw) + offset_of!(HwState, ppu);
    start..start + size_of::<PpuState>()
}

/// Where the synthesizer (`hw.apu.synth`) lies in `State`'s bytes.
fn synthesizer_bytes() -> Range<usize> {
    let start = offset_of!(State, hw) + offset_of!(HwState, apu) + offset_of!(ApuState, synth);
    start..start + size_of::<SynthState>()
}

/// Whether `a` and `b` are equal outside `ignored`.
pub fn same_state(a: &State, b: &State, ignored: Option<&Range<usize>>) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match ignored {
        None => a == b,
        Some(range) => a[..range.start] == b[..range.start] && a[range.end..] == b[range.end..],
    }
}

/// `state` with the `ignored` bytes zeroed, so that a field walk names a difference
/// outside them.
pub fn masked(state: &State, ignored: Option<&Range<usize>>) -> Box<State> {
    let mut copy = Box::new(*state);
    if let Some(range) = ignored {
        bytemuck::bytes_of_mut(&mut *copy)[range.clone()].fill(0);
    }
    copy
}
