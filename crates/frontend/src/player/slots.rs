//! The player's save-state files for one ROM: ten slots and the resume point, in the
//! platform data directory (`directories`), e.g. `~/.local/share/backspin/states/<SHA-1 of
//! the ROM>/` on Linux. Keying by the ROM's SHA-1 means two ROMs never share slots, however
//! alike their titles.
//!
//! Slot files are ordinary save states (`backspin state info` reads them), written
//! atomically with the battery saves' helper. Every error is one line for a toast; a load
//! that fails changes nothing.

use crate::battery::{unix_now, write_atomic};
use crate::error::describe_io;
use backspin_core::state_file::{self, Metadata};
use backspin_core::{Core, Options, Rom, SCREEN_HEIGHT, SCREEN_WIDTH, State};
use backspin_rewind::{Config, Timeline};
use std::path::{Path, PathBuf};

/// No save state comes near this; a bigger file is not one.
const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;

/// Thumbnails in the slot strip: the 160x144 picture scaled down by this factor.
pub const THUMB_SCALE: usize = 10;
pub const THUMB_WIDTH: usize = SCREEN_WIDTH / THUMB_SCALE;
pub const THUMB_HEIGHT: usize = SCREEN_HEIGHT / THUMB_SCALE;

/// The folder for the save states of the ROM with this SHA-1.
pub fn rom_dir(data_dir: &Path, rom: &Rom) -> PathBuf {
    let sha1: String = rom.sha1().iter().map(|b| format!("{b:02x}")).collect();
    data_dir.join("states").join(sha1)
}

/// Where the player keeps save states: `BACKSPIN_DATA_DIR` if set (tests, portable
/// installs), else the platform data directory (`None` when the system has no home).
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BACKSPIN_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "backspin").map(|d| d.data_dir().to_path_buf())
}

/// One ROM's slot files.
#[derive(Clone, Debug)]
pub struct Slots {
    dir: PathBuf,
}

/// A slot's state, checked against the running game and ready to load.
pub struct LoadedSlot {
    pub state: Box<State>,
    /// Host time the slot was saved (Unix seconds; 0: unknown).
    pub saved_at: u64,
}

impl Slots {
    pub fn new(dir: PathBuf) -> Slots {
        Slots { dir }
    }

    /// The folder holding this ROM's slots and resume point.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `slot-N.state` for slot `n` (1..=10).
    pub fn path(&self, slot: u8) -> PathBuf {
        self.dir.join(format!("slot-{slot}.state"))
    }

    /// The state saved on exit and resumed on the next launch.
    pub fn resume_state_path(&self) -> PathBuf {
        self.dir.join("resume.state")
    }

    /// The rewind history saved beside the resume state.
    pub fn resume_history_path(&self) -> PathBuf {
        self.dir.join("resume.history")
    }

    /// Saves `core` (at timeline frame `frame`) to `slot`. Returns the file it replaced
    /// (`None`: the slot was empty), for undo.
    pub fn save(&self, slot: u8, core: &Core, frame: u64) -> Result<Option<Vec<u8>>, String> {
        let path = self.path(slot);
        let previous = read_limited(&path)?;
        write_state(&path, core, frame)?;
        Ok(previous)
    }

    /// Puts back what a save replaced: the old file, or no file.
    pub fn restore(&self, slot: u8, previous: Option<&[u8]>) -> Result<(), String> {
        let path = self.path(slot);
        let result = match previous {
            Some(bytes) => write_atomic(&path, bytes),
            None => match std::fs::remove_file(&path) {
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        result.map_err(|error| format!("slot {slot}: {}", describe_io(&error)))
    }

    /// Reads and checks `slot` for the running game (model, ROM, CRC, every field).
    pub fn load(&self, slot: u8, core: &Core) -> Result<LoadedSlot, String> {
        let path = self.path(slot);
        let bytes = read_limited(&path)?.ok_or_else(|| format!("slot {slot} is empty"))?;
        let (info, state) = state_file::decode_for(core, &bytes).map_err(|e| e.to_string())?;
        Ok(LoadedSlot {
            state,
            saved_at: info.metadata.map_or(0, |m| m.created_unix_seconds),
        })
    }

    /// `slot`'s thumbnail scaled down to `THUMB_WIDTH`x`THUMB_HEIGHT` RGBA, if the slot
    /// holds a readable file with a picture.
    pub fn thumbnail(&self, slot: u8) -> Option<Vec<u8>> {
        let bytes = read_limited(&self.path(slot)).ok()??;
        let info = state_file::info(&bytes).ok()?;
        scale_down_png(&info.metadata?.thumbnail_png, THUMB_SCALE)
    }

    /// The resume point's picture scaled down by `scale` (RGBA), if there is one.
    pub fn resume_thumbnail(&self, scale: usize) -> Option<Vec<u8>> {
        let bytes = read_limited(&self.resume_state_path()).ok()??;
        let info = state_file::info(&bytes).ok()?;
        scale_down_png(&info.metadata?.thumbnail_png, scale)
    }
}

/// A session picked up where the last one ended.
pub struct Resumed {
    pub timeline: Timeline,
    /// What to tell the player ("Resumed at frame N ...").
    pub notice: String,
}

/// Saves the resume point: the state now (`resume.state`) and the rewind history
/// (`resume.history`; removed when there is none, so a stale one is never paired with a
/// new state).
pub fn write_resume(slots: &Slots, timeline: &Timeline) -> Result<(), String> {
    let history_path = slots.resume_history_path();
    match timeline.save_history() {
        Some(bytes) => {
            if let Some(dir) = history_path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|error| format!("{}: {}", dir.display(), describe_io(&error)))?;
            }
            write_atomic(&history_path, &bytes)
                .map_err(|error| format!("{}: {}", history_path.display(), describe_io(&error)))?;
        }
        None => match std::fs::remove_file(&history_path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "{}: {}",
                    history_path.display(),
                    describe_io(&error)
                ));
            }
            _ => {}
        },
    }
    write_state(
        &slots.resume_state_path(),
        timeline.core(),
        timeline.frame(),
    )
}

/// The session saved by [`write_resume`] for the ROM `core` plays, if there is one: the
/// saved state with its rewind history (`budget_bytes` > 0), or without it when the history
/// is missing or unusable (a warning). `None` (with a warning when the file is bad): start
/// from power-on. Host time since the save advances a cartridge clock, as a `.sav` does.
pub fn read_resume(slots: &Slots, core: &Core, budget_bytes: usize) -> Option<Resumed> {
    let path = slots.resume_state_path();
    let bytes = match read_limited(&path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return None,
        Err(error) => {
            log::warn!("not resuming: {error}");
            return None;
        }
    };
    let (info, state) = match state_file::decode_for(core, &bytes) {
        Ok(decoded) => decoded,
        Err(error) => {
            log::warn!("not resuming: {error} ({})", path.display());
            return None;
        }
    };
    let resumed_core = || {
        let options = Options {
            model: core.model(),
            boot_rom: None,
        };
        let mut fresh = Core::new(core.rom().clone(), options);
        fresh.load_state(&state);
        fresh
    };
    let history = match read_limited(&slots.resume_history_path()) {
        Ok(history) => history,
        Err(error) => {
            log::warn!("rewind history not resumed: {error}");
            None
        }
    };
    let with_history = history.filter(|_| budget_bytes > 0).and_then(|history| {
        Timeline::resume(resumed_core(), Config::new(budget_bytes), &history)
            .map_err(|error| {
                log::warn!(
                    "rewind history not resumed: {error} ({}); resuming without it",
                    slots.resume_history_path().display()
                );
            })
            .ok()
    });
    let had_history = with_history.is_some();
    let mut timeline = with_history.unwrap_or_else(|| Timeline::new(resumed_core(), budget_bytes));
    let saved_at = info.metadata.map_or(0, |m| m.created_unix_seconds);
    let now = unix_now();
    let has_clock = {
        let core = timeline.core();
        core.rom()
            .rtc_registers(&core.state().hw.mbc, core.m_cycles())
            .is_some()
    };
    if has_clock && saved_at > 0 && now > saved_at {
        timeline.rtc_advance(now - saved_at);
    }
    let span = timeline.span();
    let seconds = rewind_seconds(span.newest - span.oldest);
    let notice = if had_history {
        format!(
            "Resumed at frame {} with {seconds:.0}s of rewind",
            span.position
        )
    } else {
        "Resumed (no rewind history)".to_string()
    };
    Some(Resumed { timeline, notice })
}

fn rewind_seconds(frames: u64) -> f64 {
    backspin_rewind::frames_to_seconds(frames)
}

/// Writes `core` as a save state at `path` atomically, the screen as its thumbnail.
pub fn write_state(path: &Path, core: &Core, frame: u64) -> Result<(), String> {
    let metadata = Metadata {
        created_unix_seconds: unix_now(),
        frame,
        emulator_version: state_file::EMULATOR_VERSION.to_string(),
        thumbnail_png: crate::screen_png::encode_screen(core),
    };
    let bytes = state_file::save(core, &metadata);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|error| format!("{}: {}", dir.display(), describe_io(&error)))?;
    }
    write_atomic(path, &bytes)
        .map_err(|error| format!("{}: {}", path.display(), describe_io(&error)))
}

/// The file's bytes, `Ok(None)` when there is none; refuses files too big to be a state.
pub fn read_limited(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match std::fs::metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("{}: {}", path.display(), describe_io(&error))),
        Ok(meta) if meta.len() > MAX_STATE_BYTES => {
            return Err(format!("{} is too big to be a save state", path.display()));
        }
        Ok(_) => {}
    }
    std::fs::read(path)
        .map(Some)
        .map_err(|error| format!("{}: {}", path.display(), describe_io(&error)))
}

/// "just now", "2 min ago", "3 h ago", "5 days ago" for a file saved at `saved_at`.
pub fn describe_age(saved_at: u64, now: u64) -> String {
    if saved_at == 0 {
        return "at an unknown time".into();
    }
    let seconds = now.saturating_sub(saved_at);
    match seconds {
        0..60 => "just now".into(),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..86_400 => format!("{} h ago", seconds / 3600),
        _ => format!("{} days ago", seconds / 86_400),
    }
}

/// Decodes a 160x144 gray or RGB PNG and averages each `scale` square into one RGBA pixel
/// (`scale` divides 160 and 144). `None` for anything else.
fn scale_down_png(png_bytes: &[u8], scale: usize) -> Option<Vec<u8>> {
    let (thumb_width, thumb_height) = (SCREEN_WIDTH / scale, SCREEN_HEIGHT / scale);
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().ok()?;
    let mut pixels = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut pixels).ok()?;
    if frame.width as usize != SCREEN_WIDTH
        || frame.height as usize != SCREEN_HEIGHT
        || frame.bit_depth != png::BitDepth::Eight
    {
        return None;
    }
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        _ => return None,
    };
    let stride = frame.line_size;
    let mut out = vec![0xFF; thumb_width * thumb_height * 4];
    for ty in 0..thumb_height {
        for tx in 0..thumb_width {
            let mut sum = [0u32; 3];
            for y in ty * scale..(ty + 1) * scale {
                for x in tx * scale..(tx + 1) * scale {
                    let at = y * stride + x * channels;
                    let rgb = match channels {
                        1 => [pixels[at]; 3],
                        _ => [pixels[at], pixels[at + 1], pixels[at + 2]],
                    };
                    for (s, v) in sum.iter_mut().zip(rgb) {
                        *s += u32::from(v);
                    }
                }
            }
            let at = (ty * thumb_width + tx) * 4;
            for c in 0..3 {
                out[at + c] = (sum[c] / (scale * scale) as u32) as u8;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo_core() -> Core {
        let rom = Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
        Core::new(rom, Options::default())
    }

    #[test]
    fn save_load_undo_and_thumbnail() {
        let dir = tempfile::tempdir().unwrap();
        let mut core = demo_core();
        let slots = Slots::new(rom_dir(dir.path(), core.rom()));
        assert!(slots.load(3, &core).err().unwrap().contains("empty"));
        for _ in 0..120 {
            core.run_frame();
        }
        assert_eq!(
            slots.save(3, &core, 120).unwrap(),
            None,
            "the slot was empty"
        );
        let first = std::fs::read(slots.path(3)).unwrap();
        let start = std::time::Instant::now();
        let loaded = slots.load(3, &core).ok().unwrap();
        println!("slot load (read + check): {:?}", start.elapsed());
        assert!(loaded.state.as_bytes() == core.state().as_bytes());
        assert!(unix_now() - loaded.saved_at < 60);
        let thumb = slots.thumbnail(3).expect("a thumbnail");
        assert_eq!(thumb.len(), THUMB_WIDTH * THUMB_HEIGHT * 4);
        core.run_frame();
        let previous = slots.save(3, &core, 121).unwrap();
        assert_eq!(previous.as_deref(), Some(&first[..]));
        slots.restore(3, previous.as_deref()).unwrap();
        assert_eq!(std::fs::read(slots.path(3)).unwrap(), first);
        slots.restore(3, None).unwrap();
        assert!(!slots.path(3).exists());
    }

    #[test]
    fn another_roms_state_and_a_broken_file_are_one_line_errors() {
        let dir = tempfile::tempdir().unwrap();
        let core = demo_core();
        let slots = Slots::new(rom_dir(dir.path(), core.rom()));
        // Another ROM's state in this ROM's slot (copied by hand).
        let mut other_rom = super::super::DEMO_ROM.to_vec();
        other_rom[0x134] ^= 1; // another title, another SHA-1
        let other = Core::new(Rom::from_bytes(other_rom).unwrap(), Options::default());
        write_state(&slots.path(1), &other, 0).unwrap();
        let error = slots.load(1, &core).err().unwrap();
        assert!(error.contains("another game"), "{error}");
        assert!(!error.contains('\n'));
        std::fs::write(slots.path(2), b"BSPNSTAT garbage").unwrap();
        let error = slots.load(2, &core).err().unwrap();
        assert!(!error.is_empty() && !error.contains('\n'), "{error}");
        assert!(slots.thumbnail(2).is_none());
    }

    #[test]
    fn two_roms_never_share_a_folder() {
        let core = demo_core();
        let mut other_rom = super::super::DEMO_ROM.to_vec();
        other_rom[0x7FFF] ^= 1; // same title and header, other bytes
        let other = Rom::from_bytes(other_rom).unwrap();
        assert_ne!(
            rom_dir(Path::new("/d"), core.rom()),
            rom_dir(Path::new("/d"), &other)
        );
    }

    #[test]
    fn ages() {
        assert_eq!(describe_age(1000, 1030), "just now");
        assert_eq!(describe_age(1000, 1000 + 150), "2 min ago");
        assert_eq!(describe_age(1000, 1000 + 7200), "2 h ago");
        assert_eq!(describe_age(0, 5), "at an unknown time");
    }
}
