//! Reading a ROM file the user named. Every command and the player (its command line, a
//! file dropped on the window) load ROMs here, so the size cap and the messages are the
//! same everywhere.

use crate::error::{CliError, read_user_file};
use backspin_core::Rom;
use std::path::Path;

/// The largest cartridge is 8 MiB; anything far bigger is not a ROM, and is refused
/// before it is read.
pub const MAX_ROM_BYTES: u64 = 16 * 1024 * 1024;

/// Reads and parses a ROM file. Every failure (unreadable, too big, not a ROM) is one line
/// naming the path.
pub fn load_rom(path: &Path) -> Result<Rom, CliError> {
    let bytes = read_user_file("ROM", path, MAX_ROM_BYTES)?;
    Rom::from_bytes(bytes).map_err(|error| CliError::new(format!("bad ROM: {error}"), path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_line_error(path: &Path) -> String {
        let error = load_rom(path).expect_err("refused").to_string();
        assert!(!error.contains('\n'), "{error}");
        assert!(error.contains(&path.display().to_string()), "{error}");
        error
    }

    #[test]
    fn unreadable_too_big_and_not_a_rom_are_one_line_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.gb");
        assert!(one_line_error(&missing).contains("cannot read ROM: no such file"));
        assert!(one_line_error(dir.path()).contains("is a directory"));
        let huge = dir.path().join("huge.gb");
        let file = std::fs::File::create(&huge).unwrap();
        file.set_len(MAX_ROM_BYTES + 1).unwrap();
        assert!(one_line_error(&huge).contains("more than"));
        let short = dir.path().join("short.gb");
        std::fs::write(&short, [0u8; 16]).unwrap();
        assert!(one_line_error(&short).contains("bad ROM"));
        let demo = dir.path().join("demo.gb");
        std::fs::write(&demo, crate::player::DEMO_ROM).unwrap();
        assert!(load_rom(&demo).is_ok());
    }
}
