//! Rewind for Backspin: a cycle-stamped input log, a double-ended ring of delta snapshots,
//! binary-search seek with exact re-simulation, DVR-style redo and timeline forks.
//!
//! How history is stored (reasoning and measurements: `docs/rewind.md`):
//! - Each stored frame is the bytewise difference of its state and the previous stored
//!   state, coded as zero-run tokens (`codec.rs`), then kept raw, as LZ4, or Huffman-coded
//!   with codes learned from the previous keyframe group (`huffman.rs`), whichever is
//!   smallest. A patch is added to step forward and subtracted to step back, so one record
//!   per frame serves stepping back and stepping forward again.
//! - Keyframes (whole states) come every `keyframe_interval` stored frames, or sooner once
//!   the deltas since the last one pass `keyframe_chain_bytes` (deflated: they are rare and
//!   large, where an entropy stage pays), so a seek decodes one keyframe and a bounded
//!   number of patch bytes, or walks from the newest state or from the last seek position
//!   when that is cheaper. Each keyframe carries models learned from
//!   the group before it for the deltas after it (`hot.rs`): Huffman codes, the byte
//!   positions that change in most frames (coded without token headers), the expected step
//!   of counters (M-cycles, frames, timer and APU clocks), and which WRAM page OAM is copied
//!   from by DMA (OAM is then coded against that page's previous value).
//! - Records and their 8-byte index entries share one pre-allocated buffer (`ring.rs`);
//!   the newest state is kept uncompressed, so a capture is one pass with no allocation.
//! - Joypad changes and host-time (RTC) inputs are logged with the M-cycle they were applied
//!   at ([`InputLog`]); seeking on a core restores the stored frame before the target and
//!   re-simulates with those inputs, so the state is byte-identical to the original run and
//!   the picture is the one drawn then. Thinned capture (every k-th frame) re-simulates the
//!   gap the same way.
//! - What each part bought, and what was tried and dropped, with the figures:
//!   `docs/rewind.md`.
//!
//! - [`Timeline`] is what a frontend drives: it owns the core and the history, stamps every
//!   input with a monotonic timeline cycle (resets restart the core's clock, not the
//!   timeline's) and implements rewind, redo and forks once for every client.
//!
//! # Embedding
//!
//! ```
//! use backspin_core::{Buttons, Core, Options, Rom};
//! use backspin_rewind::Timeline;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let mut bytes = vec![0u8; 0x8000];
//! # bytes[0x100..0x102].copy_from_slice(&[0x18, 0xFE]); // JR -2
//! let rom = Rom::from_bytes(bytes)?; // the cartridge's bytes
//! let core = Core::new(rom, Options::default());
//! let mut timeline = Timeline::new(core, 64 << 20); // up to 64 MiB of history
//!
//! // Every frame while playing (also right after a rewind: matching input replays the
//! // recorded future, the first differing input forks it):
//! for frame in 0..120 {
//!     timeline.set_buttons(if frame < 60 { Buttons::A } else { 0 });
//!     let _events = timeline.run_frame();
//! }
//! let picture = *timeline.core().frame(); // what the core drew at frame 120
//!
//! // Every frame while the rewind key is held (the core then shows that frame exactly):
//! timeline.step_back()?;
//! assert_eq!(timeline.frame(), 119);
//! // Jump anywhere in the history, and forward again (redo):
//! timeline.seek(30)?;
//! timeline.seek(120)?;
//! assert_eq!(*timeline.core().frame(), picture);
//! let span = timeline.span(); // what is held: oldest ..= newest, and where the core is
//! assert_eq!((span.oldest, span.position, span.newest), (0, 120, 120));
//! # Ok(())
//! # }
//! ```
//!
//! Save states are `backspin_core::state_file`'s; loading one into a timeline
//! ([`Timeline::restore_state`]) is an event in its history that rewind can cross.

#![warn(missing_docs)]

// Reached from outside only through the hidden `testing` module, so not held to the
// missing-docs lint.
#[allow(missing_docs)]
mod codec;
mod hot;
mod huffman;
mod input_log;
mod logs;
mod rewinder;
#[allow(missing_docs)]
mod ring;
#[doc(hidden)]
pub mod testing;
mod timeline;

pub use codec::DecodeError;
pub use input_log::{InputEvent, InputLog};
pub use logs::MemoryWrite;
pub use rewinder::{
    Captured, Config, HistoryError, RewindError, Rewinder, SeekReport, Snapshot, Stats,
    frames_to_seconds,
};
pub use timeline::{Checkpoint, RunUntil, Span, Timeline};
