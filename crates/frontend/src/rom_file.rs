//! Reading a ROM file the user named. Every command and the player (its command line, a
//! file dropped on the window) load ROMs here, so the size cap and the messages are the
//! same everywhere. A zip archive (how most ROM sets are kept) stands for the one `.gb` or
//! `.gbc` file inside it; everything else about the game (its `.sav`, its slots) follows
//! the path the user named, so a zipped game keeps its battery save beside the zip.

use crate::error::{CliError, read_user_file};
use backspin_core::Rom;
use std::path::Path;

/// The largest cartridge is 8 MiB; anything far bigger is not a ROM, and is refused
/// before it is read (or, in a zip, while it is unpacked).
pub use backspin_harness::MAX_ROM_FILE_BYTES as MAX_ROM_BYTES;

/// Reads and parses a ROM file, or the one ROM inside a zip archive (the harness's
/// [`backspin_harness::unzip_rom`], which `backspin test` uses too). Every failure
/// (unreadable, too big, not a ROM, a zip with no ROM or several) is one line naming the
/// path.
pub fn load_rom(path: &Path) -> Result<Rom, CliError> {
    let bytes = read_user_file("ROM", path, MAX_ROM_BYTES)?;
    let bytes = backspin_harness::unzip_rom(bytes).map_err(|what| CliError::new(what, path))?;
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

    /// A zip archive at `path` holding `members` (name, bytes), deflated.
    fn write_zip(path: &Path, members: &[(&str, &[u8])]) {
        let mut writer = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in members {
            writer.start_file(*name, options).unwrap();
            std::io::Write::write_all(&mut writer, bytes).unwrap();
        }
        writer.finish().unwrap();
    }

    #[test]
    fn a_zip_stands_for_its_one_rom() {
        let dir = tempfile::tempdir().unwrap();
        let demo = crate::player::DEMO_ROM;
        let zipped = dir.path().join("Demo (World).ZIP");
        write_zip(
            &zipped,
            &[
                ("readme.txt", b"hello"),
                ("__MACOSX/._demo.gb", b"resource fork"),
                ("games/demo.GB", demo),
            ],
        );
        let rom = load_rom(&zipped).expect("the zipped demo loads");
        let plain = dir.path().join("demo.gb");
        std::fs::write(&plain, demo).unwrap();
        assert_eq!(rom.bytes(), load_rom(&plain).unwrap().bytes());
    }
}
