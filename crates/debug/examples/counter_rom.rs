//! Writes the debugger's test program (`tests/roms/counter.asm`) as `counter.gb` with its
//! labels (`counter.sym`) and line table (`counter.lines`) into the directory given: the
//! ROM the Node DAP suite (editors/vscode/test) debugs through `backspin debug`.

use std::path::PathBuf;

fn main() -> Result<(), String> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: counter_rom DIR")?);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/roms/counter.asm");
    let assembled = backspin_asm::assemble_file_with_symbols(path).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    assembled
        .write_with_debug_info(&dir.join("counter.gb"))
        .map_err(|e| format!("{}: {e}", dir.display()))
}
