//! Writes the debugger's test program (`tests/roms/counter.asm`) as `counter.gb` and its
//! labels as `counter.sym` (RGBDS format) into the directory given: the ROM the Node DAP
//! suite (editors/vscode/test) debugs through `backspin debug`.

use std::fmt::Write;
use std::path::PathBuf;

fn main() -> Result<(), String> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: counter_rom DIR")?);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/roms/counter.asm");
    let assembled = backspin_asm::assemble_file_with_symbols(path).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut sym = String::from("; counter.asm's labels\n");
    for (name, &value) in &assembled.symbols {
        // Labels only: hardware.inc's constants start with `_`, `r` + capital, or are
        // capitals with underscores.
        let constant = name.starts_with('_')
            || name.starts_with(|c: char| c.is_ascii_uppercase()) && name.contains('_')
            || name.len() > 1
                && name.starts_with('r')
                && name[1..].starts_with(|c: char| c.is_ascii_uppercase());
        if let (false, Ok(addr)) = (constant, u16::try_from(value)) {
            let _ = writeln!(sym, "00:{addr:04X} {name}");
        }
    }
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("{name}: {e}"))
    };
    write("counter.gb", &assembled.rom)?;
    write("counter.sym", sym.as_bytes())
}
