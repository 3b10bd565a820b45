//! One loaded game: the core, the options it runs with, the picture and sound buffers the
//! frontend is handed, the cheats and the clock bytes. No FFI here: `lib.rs` translates.

use backspin_core::state_file::{self, Metadata};
use backspin_core::{BootRom, Buttons, Core, FastPaths, Model, Options, Rom, run_one_frame};

use crate::cheats::Cheats;
use crate::options::{ModelChoice, Settings};
use crate::picture::Picture;

/// The embedded demo the frontend's player runs without a ROM: what no content runs.
pub const DEMO_ROM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/demo.gb"));

/// Bytes of the MBC3 clock as `RETRO_MEMORY_RTC` exposes it: the `.sav` clock footer.
pub const RTC_BYTES: usize = 48;

/// A loaded game.
pub struct Session {
    pub core: Core,
    pub settings: Settings,
    /// What `retro_video_refresh` gets.
    pub picture: Picture,
    /// Whether the last frame changed the picture.
    pub picture_changed: bool,
    /// Samples of the last frame, interleaved L, R.
    pub audio: Vec<i16>,
    pub cheats: Cheats,
    /// What `retro_serialize_size` answers: fixed for the game and model.
    pub state_size: usize,
    /// The clock as `RETRO_MEMORY_RTC` shows it (clock carts only).
    pub rtc: Option<Box<[u8; RTC_BYTES]>>,
    /// The clock bytes we last published, to tell whether the frontend wrote its `.rtc`.
    rtc_published: [u8; RTC_BYTES],
    /// Whether a frame has run since the game was loaded (the clock catch-up happens once).
    started: bool,
}

/// Why a game did not load.
pub type LoadError = String;

/// The metadata every state carries: nothing that changes between two saves of the same
/// state (no time, no thumbnail), so the same state gives the same bytes.
fn fixed_metadata() -> Metadata {
    Metadata {
        created_unix_seconds: 0,
        frame: 0,
        emulator_version: state_file::EMULATOR_VERSION.to_string(),
        thumbnail_png: Vec::new(),
    }
}

/// Host time, seconds since 1970.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Session {
    /// Powers on `content` (or the demo without any) with `settings`; `boot_rom` reads a
    /// boot ROM file by name from the system directory. Warnings go to `warn`.
    pub fn load(
        content: Option<&[u8]>,
        settings: Settings,
        boot_rom: impl Fn(&str) -> Option<Vec<u8>>,
        warn: &mut dyn FnMut(&str),
    ) -> Result<Session, LoadError> {
        let bytes = content.unwrap_or(DEMO_ROM).to_vec();
        let rom = Rom::from_bytes(bytes).map_err(|e| format!("not a Game Boy ROM: {e}"))?;
        for warning in rom.warnings() {
            warn(warning);
        }
        let model = match settings.model {
            ModelChoice::Auto => Model::auto_for(&rom),
            ModelChoice::Dmg => Model::Dmg,
            ModelChoice::Cgb => Model::Cgb,
        };
        let boot = if settings.boot_rom {
            let name = match model {
                Model::Dmg => "dmg_boot.bin",
                Model::Cgb => "cgb_boot.bin",
            };
            match boot_rom(name).map(|b| BootRom::from_bytes(&b)) {
                Some(Ok(boot)) if boot.model() == model => Some(boot),
                Some(Ok(_)) => {
                    warn(&format!(
                        "{name} is for the other model; starting without a boot ROM"
                    ));
                    None
                }
                Some(Err(e)) => {
                    warn(&format!("{name}: {e}; starting without a boot ROM"));
                    None
                }
                None => {
                    warn(&format!(
                        "{name} not found in the system directory; starting without a boot ROM"
                    ));
                    None
                }
            }
        } else {
            None
        };
        let core = Core::new(
            rom,
            Options {
                model,
                boot_rom: boot,
            },
        );
        let mut session = Session {
            core,
            settings,
            picture: Picture::new(settings.correction, settings.palette),
            picture_changed: true,
            audio: Vec::with_capacity(4096),
            cheats: Cheats::default(),
            state_size: 0,
            rtc: None,
            rtc_published: [0; RTC_BYTES],
            started: false,
        };
        session.apply_settings(settings);
        session.state_size = session.serialize_vec().len();
        if session.core.rom().header().has_rtc && session.core.has_battery() {
            session.rtc = Some(Box::new([0; RTC_BYTES]));
            session.publish_rtc();
        }
        session.picture.draw(&session.core);
        Ok(session)
    }

    /// Takes the options that apply while running (picture, fast paths); the model and boot
    /// ROM wait for the next load.
    pub fn apply_settings(&mut self, settings: Settings) {
        self.picture
            .set_colours(settings.correction, settings.palette);
        self.settings.palette = settings.palette;
        self.settings.correction = settings.correction;
        self.settings.fast_paths = settings.fast_paths;
        let fast = if settings.fast_paths {
            FastPaths::ALL
        } else {
            FastPaths::NONE
        };
        // Sound is always wanted: synthesis stays on whatever the debugging switch says.
        self.core.set_fast_paths(FastPaths {
            audio_synthesis: true,
            drawing: true,
            ..fast
        });
    }

    /// One frame (`run_one_frame`, the stepper every Backspin tool counts frames with) with
    /// `buttons` held: cheats first, then the frame; fills `audio`, and `picture` if
    /// `show` (the frontend shows this frame).
    pub fn run_frame(&mut self, buttons: u8, show: bool) {
        if !self.started {
            self.started = true;
            self.catch_up_clock();
        }
        self.core.set_buttons(Buttons(buttons));
        if self.cheats.has_ram_writes() {
            self.cheats.write_ram(&mut self.core);
        }
        let frames_before = self.core.state().hw.frames;
        let lcd_was_on = self.core.state().hw.ppu.lcdc & 0x80 != 0;
        run_one_frame(&mut self.core);
        // Every sample up to the present, not only those the core's own flushes (frame
        // ends, a flush period) have finished: the samples delivered then equal emulated
        // time x rate to within one, whatever the frame (LCD off, double speed).
        self.core.finish_audio();
        self.picture_changed = if !show {
            false
        } else if self.core.state().hw.frames == frames_before || !lcd_was_on {
            // The LCD was off (all frame, or until it was switched on during it: a Game Boy
            // shows nothing of that first frame either): the screen is blank. The core's
            // frame buffer is not part of the state, so its stale pixels would differ after
            // a state load.
            self.picture.blank(&self.core)
        } else {
            self.picture.draw(&self.core)
        };
        self.audio.clear();
        self.core.output().audio.drain_i16(&mut self.audio);
        if self.rtc.is_some() {
            self.publish_rtc();
        }
    }

    /// The running game as a state file (fixed metadata, BESS footer).
    pub fn serialize_vec(&self) -> Vec<u8> {
        state_file::save(&self.core, &fixed_metadata())
    }

    /// Loads a state file made for this game and model; on error nothing changes.
    pub fn unserialize(&mut self, bytes: &[u8]) -> Result<(), String> {
        let (_, state) = state_file::decode_for(&self.core, bytes).map_err(|e| e.to_string())?;
        self.core.load_state(&state);
        self.picture_changed = self.picture.draw(&self.core);
        Ok(())
    }

    /// Bytes of cartridge RAM the battery keeps (0 without a battery): the `.srm`.
    pub fn save_ram_len(&self) -> usize {
        if !self.core.has_battery() {
            return 0;
        }
        self.core
            .rom()
            .header()
            .ram_bytes
            .min(backspin_core::state::CART_RAM_MAX)
    }

    /// Re-applies the cheats' ROM patches (after a Game Genie code changed).
    pub fn apply_rom_patches(&mut self) {
        let patches = self.cheats.rom_patches(self.core.rom());
        self.core.set_rom_patches(&patches);
    }

    /// Refreshes the RTC bytes from the running clock (as the `.sav` footer stores it).
    fn publish_rtc(&mut self) {
        let ram = self.save_ram_len();
        let Some(rtc) = self.rtc.as_mut() else { return };
        if let Some(save) = self.core.battery_save(unix_now())
            && let Some(footer) = save.get(ram..ram + RTC_BYTES)
        {
            rtc.copy_from_slice(footer);
            self.rtc_published.copy_from_slice(footer);
        }
    }

    /// At the first frame: if the frontend wrote its `.rtc` into the clock bytes since the
    /// load, load that clock and advance it by the host time since it was saved. The one
    /// place host time enters (never on `retro_unserialize`).
    fn catch_up_clock(&mut self) {
        let Some(rtc) = self.rtc.as_deref().copied() else {
            return;
        };
        if rtc == self.rtc_published {
            return;
        }
        let ram = self.save_ram_len();
        let mut bytes = self.core.state().hw.cart_ram[..ram].to_vec();
        bytes.extend_from_slice(&rtc);
        match self.core.load_battery(&bytes) {
            Ok(Some(saved_at)) => {
                let now = unix_now();
                if now > saved_at {
                    self.core.rtc_advance_seconds(now - saved_at);
                }
            }
            Ok(None) => {}
            Err(e) => crate::host::log(
                crate::ffi::log_level::WARN,
                &format!("clock not loaded: {e}"),
            ),
        }
    }
}

/// The frame rate `retro_get_system_av_info` declares: M-cycles per second over M-cycles
/// per frame, 59.7275 Hz.
pub const FPS: f64 =
    backspin_core::M_CYCLES_PER_SECOND as f64 / backspin_core::M_CYCLES_PER_FRAME as f64;
