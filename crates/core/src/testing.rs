//! Internals that the core's own integration tests (`crates/core/tests`) and the shared
//! test-support crate drive directly: the CPU alone on a flat bus (the SM83 single-step
//! cases), the PPU alone, the compatibility palettes. Hidden from the docs and not an API:
//! an embedder runs the whole machine through [`Core`](crate::Core), and nothing here is
//! covered by semantic versioning. The raw state structs these take are in
//! [`state`](crate::state).

pub use crate::bus::Bus;
pub use crate::compatibility_palettes::{CompatibilityPalettes, for_cartridge};
pub use crate::cpu::step;
pub use crate::ppu::VideoMemory;

/// I/O register addresses (the low byte of 0xFF00 + n), spelled as in Pan Docs.
pub mod io {
    pub use crate::io::*;
}
