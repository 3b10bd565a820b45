//! Reading a ROM file the user named. Every command and the player (its command line, a
//! file dropped on the window) load ROMs here, so the size cap and the messages are the
//! same everywhere. A zip archive (how most ROM sets are kept) stands for the one `.gb` or
//! `.gbc` file inside it; everything else about the game (its `.sav`, its slots) follows
//! the path the user named, so a zipped game keeps its battery save beside the zip.

use crate::error::{CliError, read_user_file};
use backspin_core::Rom;
use std::io::{Cursor, Read};
use std::path::Path;

/// The largest cartridge is 8 MiB; anything far bigger is not a ROM, and is refused
/// before it is read.
pub const MAX_ROM_BYTES: u64 = 16 * 1024 * 1024;

/// Every zip archive starts with a local file header.
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

/// Reads and parses a ROM file, or the one ROM inside a zip archive. Every failure
/// (unreadable, too big, not a ROM, a zip with no ROM or several) is one line naming the
/// path.
pub fn load_rom(path: &Path) -> Result<Rom, CliError> {
    let mut bytes = read_user_file("ROM", path, MAX_ROM_BYTES)?;
    if bytes.starts_with(ZIP_MAGIC) {
        bytes = rom_in_zip(bytes).map_err(|what| CliError::new(what, path))?;
    }
    Rom::from_bytes(bytes).map_err(|error| CliError::new(format!("bad ROM: {error}"), path))
}

fn has_extension(name: &str, extensions: &[&str]) -> bool {
    Path::new(name)
        .extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| {
            extensions
                .iter()
                .any(|wanted| extension.eq_ignore_ascii_case(wanted))
        })
}

/// The decompressed bytes of the archive's only `.gb`/`.gbc` member, capped like a plain
/// ROM whatever the archive claims about its sizes.
fn rom_in_zip(archive_bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(archive_bytes))
        .map_err(|error| format!("bad zip archive: {error}"))?;
    let mut roms = Vec::new();
    for index in 0..archive.len() {
        let entry = archive
            .by_index_raw(index)
            .map_err(|error| format!("bad zip archive: {error}"))?;
        let name = entry
            .name()
            .map_err(|error| format!("bad zip archive: {error}"))?
            .to_string();
        // macOS archives carry `__MACOSX/._game.gb` resource forks beside the real file.
        let hidden = name
            .split('/')
            .any(|part| part.starts_with('.') || part == "__MACOSX");
        if entry.is_file() && !hidden && has_extension(&name, &["gb", "gbc"]) {
            roms.push((index, name));
        }
    }
    let index = match roms.as_slice() {
        [] => return Err("the zip archive holds no .gb or .gbc ROM".into()),
        [(index, _)] => *index,
        several => {
            let names: Vec<&str> = several.iter().map(|(_, name)| name.as_str()).collect();
            return Err(format!(
                "the zip archive holds {} ROMs ({}), open one of them unzipped",
                names.len(),
                names.join(", ")
            ));
        }
    };
    let name = roms.swap_remove(0).1;
    let mut entry = archive
        .by_index(index)
        .map_err(|error| format!("cannot unzip {name}: {error}"))?;
    let mut rom = Vec::new();
    entry
        .by_ref()
        .take(MAX_ROM_BYTES + 1)
        .read_to_end(&mut rom)
        .map_err(|error| format!("cannot unzip {name}: {error}"))?;
    if rom.len() as u64 > MAX_ROM_BYTES {
        return Err(format!(
            "{name} in the zip archive unpacks to more than the {MAX_ROM_BYTES} bytes a Game Boy file can be"
        ));
    }
    Ok(rom)
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
    pub(crate) fn write_zip(path: &Path, members: &[(&str, &[u8])]) {
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

    #[test]
    fn a_zip_with_no_rom_several_or_a_bomb_is_a_one_line_error() {
        let dir = tempfile::tempdir().unwrap();
        let none = dir.path().join("none.zip");
        write_zip(&none, &[("readme.txt", b"no game here")]);
        assert!(one_line_error(&none).contains("holds no .gb or .gbc ROM"));
        let two = dir.path().join("two.zip");
        write_zip(&two, &[("a.gb", b"one"), ("b.gbc", b"two")]);
        assert!(one_line_error(&two).contains("holds 2 ROMs (a.gb, b.gbc)"));
        let bomb = dir.path().join("bomb.zip");
        let huge = vec![0u8; MAX_ROM_BYTES as usize + 1];
        write_zip(&bomb, &[("huge.gb", &huge)]);
        assert!(std::fs::metadata(&bomb).unwrap().len() < MAX_ROM_BYTES);
        assert!(one_line_error(&bomb).contains("unpacks to more than"));
        let broken = dir.path().join("broken.zip");
        std::fs::write(&broken, b"PK\x03\x04 and then nothing").unwrap();
        assert!(one_line_error(&broken).contains("bad zip archive"));
    }
}
