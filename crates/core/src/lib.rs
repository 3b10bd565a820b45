//! Backspin's DMG core.
//!
//! Everything that decides the future lives in one plain-old-data [`State`]: copying it is a
//! save state. The CPU talks to the rest of the machine only through [`Bus`], one M-cycle per
//! call, so instruction timing is the order of bus calls. The core opens no files, reads no
//! clock and spawns no threads; non-determinism enters as timestamped inputs.

// The derive names paths as `::backspin_core::...`, which must resolve inside this crate too.
extern crate self as backspin_core;

pub mod apu;
mod banked;
pub mod bess;
pub mod bus;
pub mod cart;
pub mod cgb;
pub mod compatibility_palettes;
mod core;
pub mod cpu;
pub mod dma;
pub mod events;
pub mod io;
pub mod joypad;
mod machine;
pub mod ppu;
pub mod serial;
pub mod state;
pub mod state_fields;
pub mod state_file;
pub mod timer;

pub use crate::core::{
    BootRom, BootRomError, CGB_BOOT_ROM_BYTES, Core, DMG_BOOT_ROM_BYTES, Model, Options, Output,
};
pub use banked::BankError;
pub use bus::Bus;
pub use cart::{Rom, RomError};
pub use events::Events;
pub use joypad::Buttons;
pub use state::State;

/// M-cycles per second: the DMG's 4,194,304 Hz crystal divided by four.
pub const M_CYCLES_PER_SECOND: u64 = 1_048_576;
/// M-cycles in one LCD frame (154 lines of 456 dots, four dots per M-cycle).
pub const M_CYCLES_PER_FRAME: u64 = 17_556;
/// Screen size in pixels.
pub const SCREEN_WIDTH: usize = 160;
pub const SCREEN_HEIGHT: usize = 144;
