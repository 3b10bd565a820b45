//! Battery saves beside the ROM: `game.gb` keeps its cartridge RAM (and clock) in `game.sav`.
//!
//! Writes are atomic (temp file in the same folder, fsync, rename) so a crash mid-write
//! leaves the previous save intact. A failed write is a warning: losing the emulator's
//! exit code over it would not save the game either.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `<rom folder>/<rom stem>.sav`.
pub fn save_path(rom_path: &Path) -> PathBuf {
    rom_path.with_extension("sav")
}

/// The save file's bytes, `Ok(None)` when there is none yet.
pub fn read_save(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
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
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        assert!(write_atomic(&dir.path().join("missing/game.sav"), b"x").is_err());
    }
}
