//! Rewind for Backspin: a cycle-stamped input log, a double-ended ring of XOR-delta
//! snapshots, binary-search seek with exact re-simulation, DVR-style redo and timeline forks.
//!
//! How history is stored (measurements and reasoning: `shared/docs/rewind-notes.md`):
//! - Each stored frame is the XOR of its state with the previous stored state, coded as
//!   zero-run tokens and then LZ4 ([`codec`]). XOR patches apply both ways, so one record per
//!   frame serves stepping back and stepping forward again.
//! - Every `keyframe_interval` stored frames a whole state (XOR against zeros) is added, so
//!   a seek decodes one keyframe and at most a few hundred small patches.
//! - Records and their 8-byte index entries share one pre-allocated buffer ([`ring`]);
//!   the newest state is kept uncompressed, so a capture is one XOR pass with no allocation.
//! - Joypad changes are logged with the M-cycle they were applied at ([`input_log`]);
//!   seeking to a frame that was not stored (thinning) re-simulates from the stored frame
//!   before it, and seeking on a core always re-simulates at least one frame so the picture
//!   is exactly the one shown at the time.

pub mod bench;
pub mod codec;
pub mod huffman;
pub mod input_log;
mod rewinder;
pub mod ring;

pub use input_log::{InputEvent, InputLog};
pub use rewinder::{
    Captured, Config, RewindError, Rewinder, SeekReport, Snapshot, Stats, frames_to_seconds,
};
