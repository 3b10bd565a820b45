//! Battery saves beside the ROM: `game.gb` keeps its cartridge RAM (and clock) in `game.sav`.
//!
//! The file is the de-facto layout BGB and VBA-M write (and SameBoy, mGBA read): the RAM as
//! is, then on MBC3 clock carts the 48-byte RTC footer (`backspin_core::Core::battery_save`).
//! Both `backspin run` and the player load through [`load_save`], so they apply the same
//! checks, messages and clock catch-up; the player keeps the file current with a
//! [`BatteryKeeper`].
//!
//! Writes are atomic (temp file in the same folder, fsync, rename) so a crash mid-write
//! leaves the previous save intact. A failed write is a warning: losing the emulator's
//! exit code over it would not save the game either.

mod clock;
mod keeper;

pub use clock::{ClockCatchUp, catch_up, describe_seconds};
pub use keeper::BatteryKeeper;

use crate::error::{CliError, read_user_file};
use backspin_core::Core;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Far more than the largest save (128 KiB of RAM + 48 bytes); bigger files are not saves
/// and are refused before being read.
const MAX_SAVE_BYTES: u64 = 1 << 20;

/// `<rom folder>/<rom stem>.sav`.
pub fn save_path(rom_path: &Path) -> PathBuf {
    rom_path.with_extension("sav")
}

/// The save file's bytes, `Ok(None)` when there is none yet.
pub fn read_save(path: &Path) -> Result<Option<Vec<u8>>, CliError> {
    match std::fs::metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => read_user_file("battery save", path, MAX_SAVE_BYTES).map(Some),
    }
}

/// Host time in Unix seconds (0 if the host clock is before 1970).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// Loads `path` (if it exists) into `core`'s cartridge; the one load rule of `run` and the
/// player. Carts without a battery ignore the file. A file that does not fit the cartridge
/// is an error and is left untouched (the caller must then not write the save).
///
/// Returns what to do with the cartridge clock: the caller applies
/// [`ClockCatchUp::Advance`] as an input (`Core::rtc_advance_seconds`, or the timeline's
/// recorded RTC input in the player) and shows [`ClockCatchUp::Refused`] as a warning.
pub fn load_save(core: &mut Core, path: &Path, unix_now: u64) -> Result<ClockCatchUp, CliError> {
    if !core.has_battery() {
        return Ok(ClockCatchUp::NoFooter);
    }
    let Some(bytes) = read_save(path)? else {
        return Ok(ClockCatchUp::NoFooter);
    };
    let saved_at = core
        .load_battery(&bytes)
        .map_err(|error| CliError::new(format!("bad battery save: {error}"), path))?;
    Ok(match saved_at {
        Some(saved_at) => catch_up(saved_at, unix_now),
        None => ClockCatchUp::NoFooter,
    })
}

/// Replaces `path` with `bytes` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("save path has no file name"))?;
    let mut temp_name = file_name.to_os_string();
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = dir.join(temp_name);
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, path)?;
        // Make the rename itself durable where directories can be synced.
        if let Ok(dir) = std::fs::File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_path_replaces_the_extension() {
        assert_eq!(
            save_path(Path::new("a/b/game.gb")),
            Path::new("a/b/game.sav")
        );
        assert_eq!(save_path(Path::new("game")), Path::new("game.sav"));
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.sav");
        assert_eq!(read_save(&path).unwrap(), None);
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(read_save(&path).unwrap().unwrap(), b"second");
        assert!(read_save(dir.path()).is_err(), "a folder is not a save");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        assert!(write_atomic(&dir.path().join("missing/game.sav"), b"x").is_err());
    }
}
