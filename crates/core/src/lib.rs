//! Backspin's Game Boy core (DMG and CGB): a cycle-accurate machine with save states in
//! microseconds.
//!
//! Everything that decides the future lives in one plain-old-data [`State`]: copying it is a
//! save state. The core opens no files, reads no clock and spawns no threads; the host feeds
//! it inputs ([`Core::set_buttons`], [`Core::rtc_advance_seconds`]) and reads what it
//! produced ([`Core::frame`], [`Core::output`]). Runs return [`Events`] instead of calling
//! back.
//!
//! # Embedding
//!
//! ```
//! use backspin_core::state_file::{self, Metadata};
//! use backspin_core::{Buttons, Core, Options, Rom, SCREEN_WIDTH};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A ROM is the cartridge's bytes (here a 32 KiB one whose program loops at 0x0100).
//! let mut bytes = vec![0u8; 0x8000];
//! bytes[0x100..0x102].copy_from_slice(&[0x18, 0xFE]); // JR -2
//! let rom = Rom::from_bytes(bytes)?;
//! let mut core = Core::new(rom, Options::default()); // a DMG, started after the boot ROM
//!
//! // Hold A for one second of emulated time.
//! core.set_buttons(Buttons(Buttons::A));
//! for _ in 0..60 {
//!     core.run_frame();
//! }
//! // The last frame: one shade per pixel on a DMG (0 lightest ..= 3 darkest), row-major;
//! // on a CGB the picture is `frame_rgb` (RGB555, see `rgb555_to_rgb888`).
//! let top_left_shade = core.frame()[0];
//! let _row_0 = &core.frame()[..SCREEN_WIDTH];
//! # let _ = top_left_shade;
//!
//! // A save state in the portable file format, and back.
//! let saved = state_file::save(&core, &Metadata::default());
//! let frames_then = core.state().hw.frames;
//! core.run_frame();
//! state_file::load(&mut core, &saved)?;
//! assert_eq!(core.state().hw.frames, frames_then);
//!
//! // In memory, a copy of `State` is a save state too (what rewind stores).
//! let snapshot = *core.state();
//! core.run_frame();
//! core.load_state(&snapshot);
//! # Ok(())
//! # }
//! ```
//!
//! Rewind, redo and branching histories are `backspin-rewind`'s `Timeline`, which owns a
//! `Core` and stamps every input with the M-cycle it applies at.
//!
//! # What is here
//! - [`Core`] with [`Rom`], [`Options`] ([`Model`], [`BootRom`]), [`Buttons`], [`Events`]
//!   and the host-side [`Output`] (serial bytes, [`AudioOut`]).
//! - [`State`] and its parts ([`state`]): the raw machine, read-only through
//!   [`Core::state`], replaced whole through [`Core::load_state`].
//! - [`screen`]: the picture as 8-bit RGB, with DMG palettes and CGB colour correction.
//! - [`state_file`]: Backspin's save-state files (save, load, info, errors).
//! - [`bess`]: import of the portable part of other emulators' save states.
//! - [`state_fields`]: a walk over `State`'s fields by name (file format, tools).

#![warn(missing_docs)]

// The derive names paths as `::backspin_core::...`, which must resolve inside this crate too.
extern crate self as backspin_core;

// The machine's parts. They are the emulator's own business; the raw state structs they
// define are reached through `state`, for tools that read the machine (their fields carry
// the hardware documentation where they have any, so the missing-docs lint stops here).
#[allow(missing_docs)]
mod apu;
mod banked;
pub mod bess;
mod bus;
#[allow(missing_docs)]
mod cart;
#[allow(missing_docs)]
mod cgb;
mod compatibility_palettes;
mod core;
#[allow(missing_docs)]
mod cpu;
#[allow(missing_docs)]
mod dma;
mod events;
mod fast_paths;
mod frame_bounds;
mod io;
#[allow(missing_docs)]
mod joypad;
mod machine;
mod poll_loop;
#[allow(missing_docs)]
mod ppu;
pub mod screen;
#[allow(missing_docs)]
mod serial;
pub mod state;
pub mod state_fields;
pub mod state_file;
#[doc(hidden)]
pub mod testing;
#[allow(missing_docs)]
mod timer;
pub mod written_pages;

pub use crate::core::{
    BootRom, BootRomError, CGB_BOOT_ROM_BYTES, Core, DMG_BOOT_ROM_BYTES, Model, Options, Output,
    StepObserver,
};
pub use apu::{AudioOut, SAMPLE_RATE};
pub use banked::BankError;
pub use cart::{BatteryError, Header, MbcKind, Rom, RomError};
pub use cpu::disassemble;
pub use events::Events;
pub use fast_paths::{FastPath, FastPaths};
pub use frame_bounds::{FrameBounds, run_one_frame};
pub use joypad::Buttons;
pub use screen::rgb555_to_rgb888;
pub use state::State;
pub use written_pages::WrittenPages;

/// M-cycles per second: the DMG's 4,194,304 Hz crystal divided by four.
pub const M_CYCLES_PER_SECOND: u64 = 1_048_576;
/// M-cycles in one LCD frame (154 lines of 456 dots, four dots per M-cycle).
pub const M_CYCLES_PER_FRAME: u64 = 17_556;
/// Screen width in pixels.
pub const SCREEN_WIDTH: usize = 160;
/// Screen height in pixels.
pub const SCREEN_HEIGHT: usize = 144;
