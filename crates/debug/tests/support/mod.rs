//! A session on the debugger's own test program (`tests/roms/counter.asm`).

use backspin_core::{Core, Model, Options, Rom};
use backspin_debug::{Session, SourceLines, Symbols};

/// The counter program assembled, with its labels and line table.
pub fn counter() -> (Vec<u8>, Symbols, SourceLines) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/roms/counter.asm");
    let assembled = backspin_asm::assemble_file_with_symbols(path).expect("counter.asm assembles");
    let symbols = Symbols::parse(&assembled.sym).expect("the assembler's .sym parses");
    (assembled.rom, symbols, SourceLines::new(assembled.lines))
}

/// A session stopped at the program's entry.
#[allow(dead_code)] // Used by the session tests, not the DAP ones.
pub fn session() -> Session {
    let (rom, symbols, lines) = counter();
    let rom = Rom::from_bytes(rom).expect("a valid ROM");
    let core = Core::new(
        rom,
        Options {
            model: Model::Dmg,
            boot_rom: None,
        },
    );
    let mut session = Session::new(core, symbols, 64 << 20);
    session.set_source_lines(lines);
    session
}

#[allow(dead_code)] // Used by the DAP tests, not the session ones.
/// A DAP adapter whose launch builds the counter program (any `program` argument).
pub fn adapter() -> backspin_debug::dap::Adapter {
    backspin_debug::dap::Adapter::new(Box::new(|_args| {
        let (rom, symbols, lines) = counter();
        let rom = Rom::from_bytes(rom).map_err(|e| e.to_string())?;
        let core = Core::new(
            rom,
            Options {
                model: Model::Dmg,
                boot_rom: None,
            },
        );
        Ok(backspin_debug::dap::Program {
            core,
            symbols,
            lines,
        })
    }))
}
