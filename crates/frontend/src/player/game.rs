//! A game ready to play: the core with its battery save loaded, the keeper that writes the
//! save back, and the clock catch-up still to record on the new timeline.
//!
//! Opened on the UI thread (start-up, a dropped ROM) so a bad save is refused before the
//! running game is replaced; the emulation thread then turns it into a timeline.

use super::slots::{self, Slots};
use crate::battery::{self, BatteryKeeper, ClockCatchUp};
use backspin_core::{Core, Model, Options, Rom};
use std::path::Path;

pub struct Game {
    pub core: Core,
    /// `None` for the embedded demo and carts without a battery.
    pub battery: Option<BatteryKeeper>,
    /// What the loaded save says about the cartridge clock; the emulation thread records it
    /// on the timeline (`Timeline::rtc_advance`), so rewinding and replays keep it.
    pub clock: ClockCatchUp,
    /// The ROM's save-state slots and resume point (`None`: no data directory).
    pub slots: Option<Slots>,
}

impl Game {
    /// Powers `rom` on as `model` and loads `<rom_path>.sav` with the same rules and messages as
    /// `backspin run` ([`battery::load_save`]). A save that cannot be read or does not fit
    /// is an error (one line, naming the file) and the file is not touched.
    pub fn open(rom: Rom, rom_path: Option<&Path>, model: Model) -> Result<Game, String> {
        let options = Options {
            model,
            boot_rom: None,
        };
        let mut core = Core::new(rom, options);
        let slots = slots::data_dir().map(|dir| Slots::new(slots::rom_dir(&dir, core.rom())));
        let Some(rom_path) = rom_path.filter(|_| core.has_battery()) else {
            return Ok(Game {
                core,
                battery: None,
                clock: ClockCatchUp::NoFooter,
                slots,
            });
        };
        let save_path = battery::save_path(rom_path);
        let clock = battery::load_save(&mut core, &save_path, battery::unix_now())
            .map_err(|error| error.to_string())?;
        Ok(Game {
            core,
            battery: Some(BatteryKeeper::new(save_path)),
            clock,
            slots,
        })
    }
}
