//! Rewind for Backspin: a cycle-stamped input log, a double-ended ring of XOR-delta
//! snapshots, binary-search seek with exact re-simulation, DVR-style redo and timeline forks.
//!
//! How history is stored (measurements and reasoning: `shared/docs/rewind-notes.md`):
//! - Each stored frame is the XOR of its state with the previous stored state, coded as
//!   zero-run tokens ([`codec`]), then kept raw, as LZ4, or Huffman-coded with codes learned
//!   from the previous keyframe group ([`huffman`]), whichever is smallest. XOR patches apply
//!   both ways, so one record per frame serves stepping back and stepping forward again.
//! - Every `keyframe_interval` stored frames (and whenever the deltas since the last one
//!   grow large) a whole state is added, carrying the Huffman codes for the next group; a
//!   seek decodes one keyframe and at most a few hundred small patches, or walks from the
//!   newest state or from the last seek position when that is cheaper.
//! - Records and their 8-byte index entries share one pre-allocated buffer ([`ring`]);
//!   the newest state is kept uncompressed, so a capture is one XOR pass with no allocation.
//! - Joypad changes and host-time (RTC) inputs are logged with the M-cycle they were applied
//!   at ([`input_log`]); seeking on a core restores the stored frame before the target and
//!   re-simulates with those inputs, so the state is byte-identical to the original run and
//!   the picture is the one drawn then. Thinned capture (every k-th frame) re-simulates the
//!   gap the same way.
//! - Tried and dropped (600 s of the homebrew ROMs): subtraction instead of XOR (1–3 %
//!   smaller once entropy-coded, not worth a direction flag), LZ4 with a dictionary per
//!   keyframe group (from 20 % smaller to 1 % larger; the Huffman stage gains 18–30 %), and
//!   storing churning regions by value ([`raw_blocks`], an option, off by default: 17 %
//!   larger on one ROM, 3.5 % smaller on another).
//!
//! A frontend drives it like this (one core, one rewinder):
//! ```no_run
//! # use backspin_core::{Core, Options, Rom};
//! # use backspin_rewind::Rewinder;
//! # fn f(mut core: Core, buttons: u8, rewinding: bool) {
//! let mut rewinder = Rewinder::new(64 << 20);
//! // Every frame while playing (also right after a rewind: matching input replays the
//! // recorded future, the first differing input forks it):
//! rewinder.apply_input(&mut core, buttons); // logs, then core.set_buttons
//! backspin_rewind::bench::run_one_frame(&mut core);
//! rewinder.capture(core.state(), core.state().hw.frames);
//! // Every frame while the rewind key is held (the core then shows that frame exactly):
//! if rewinding {
//!     let _ = rewinder.step_back_core(&mut core);
//! }
//! // Forward again (redo) while paused: rewinder.step_forward_core(&mut core).
//! // After loading a save state or a reset: rewinder.clear().
//! # }
//! ```

pub mod bench;
pub mod codec;
pub mod hot;
pub mod huffman;
pub mod input_log;
pub mod raw_blocks;
mod rewinder;
pub mod ring;

pub use input_log::{InputEvent, InputLog};
pub use rewinder::{
    Captured, Config, RewindError, Rewinder, SeekReport, Snapshot, Stats, frames_to_seconds,
};
