//! Zipped ROMs (how most ROM sets are kept): an archive stands for the one `.gb` or `.gbc`
//! file inside it. The frontend's `rom_file` (every command and the window) and the manifest
//! runner both read ROM files through [`unzip_rom`], so a zip means the same everywhere.

use std::io::{Cursor, Read};
use std::path::Path;

/// The most a ROM file, or the ROM inside a zip, may hold. The largest cartridge is 8 MiB;
/// anything far bigger is not a ROM.
pub const MAX_ROM_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Every zip archive starts with a local file header.
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

/// The ROM in `bytes`: the bytes themselves, or for a zip archive (known by its content,
/// not its name) the decompressed bytes of its only `.gb`/`.gbc` member, capped at
/// [`MAX_ROM_FILE_BYTES`] whatever the archive claims about its sizes. The error is one
/// line without the path (the caller names the file).
pub fn unzip_rom(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    if !bytes.starts_with(ZIP_MAGIC) {
        return Ok(bytes);
    }
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
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
        .take(MAX_ROM_FILE_BYTES + 1)
        .read_to_end(&mut rom)
        .map_err(|error| format!("cannot unzip {name}: {error}"))?;
    if rom.len() as u64 > MAX_ROM_FILE_BYTES {
        return Err(format!(
            "{name} in the zip archive unpacks to more than the {MAX_ROM_FILE_BYTES} bytes a Game Boy file can be"
        ));
    }
    Ok(rom)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip archive holding `members` (name, bytes), deflated.
    fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in members {
            writer.start_file(*name, options).unwrap();
            std::io::Write::write_all(&mut writer, bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn a_zip_stands_for_its_one_rom_and_anything_else_for_itself() {
        let zipped = zip_of(&[
            ("readme.txt", b"hello"),
            ("__MACOSX/._game.gb", b"resource fork"),
            ("games/game.GBC", b"the game"),
        ]);
        assert_eq!(unzip_rom(zipped).unwrap(), b"the game");
        assert_eq!(unzip_rom(b"plain".to_vec()).unwrap(), b"plain");
    }

    #[test]
    fn no_rom_several_a_bomb_or_a_broken_archive_is_a_one_line_error() {
        let error = |bytes: Vec<u8>| {
            let error = unzip_rom(bytes).expect_err("refused");
            assert!(!error.contains('\n'), "{error}");
            error
        };
        assert!(error(zip_of(&[("readme.txt", b"no")])).contains("holds no .gb or .gbc ROM"));
        assert!(
            error(zip_of(&[("a.gb", b"1"), ("b.gbc", b"2")]))
                .contains("holds 2 ROMs (a.gb, b.gbc)")
        );
        let bomb = zip_of(&[("huge.gb", &vec![0u8; MAX_ROM_FILE_BYTES as usize + 1])]);
        assert!((bomb.len() as u64) < MAX_ROM_FILE_BYTES);
        assert!(error(bomb).contains("unpacks to more than"));
        assert!(error(b"PK\x03\x04 and then nothing".to_vec()).contains("bad zip archive"));
    }
}
