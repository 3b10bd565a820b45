//! A session on the debugger's own test program (`tests/roms/counter.asm`).

use backspin_core::{Core, Model, Options, Rom};
use backspin_debug::{Location, Session, Symbols};

/// The counter program assembled, with its labels.
pub fn counter() -> (Vec<u8>, Symbols) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/roms/counter.asm");
    let assembled = backspin_asm::assemble_file_with_symbols(path).expect("counter.asm assembles");
    let mut symbols = Symbols::default();
    // hardware.inc's constants (`_WRAM`, `rIE`, `IEF_VBLANK`) are not the program's labels.
    let constant = |name: &str| {
        name.starts_with('_')
            || name.starts_with(|c: char| c.is_ascii_uppercase()) && name.contains('_')
            || name.len() > 1
                && name.starts_with('r')
                && name[1..].starts_with(|c: char| c.is_ascii_uppercase())
    };
    for (name, &value) in assembled.symbols.iter().filter(|(name, _)| !constant(name)) {
        if let Ok(addr) = u16::try_from(value) {
            let bank = (addr < 0x4000).then_some(0);
            symbols.insert(name, Location { bank, addr });
        }
    }
    (assembled.rom, symbols)
}

/// A session stopped at the program's entry.
#[allow(dead_code)] // Used by the session tests, not the DAP ones.
pub fn session() -> Session {
    let (rom, symbols) = counter();
    let rom = Rom::from_bytes(rom).expect("a valid ROM");
    let core = Core::new(
        rom,
        Options {
            model: Model::Dmg,
            boot_rom: None,
        },
    );
    Session::new(core, symbols, 64 << 20)
}

#[allow(dead_code)] // Used by the DAP tests, not the session ones.
/// A DAP adapter whose launch builds the counter program (any `program` argument).
pub fn adapter() -> backspin_debug::dap::Adapter {
    backspin_debug::dap::Adapter::new(Box::new(|_args| {
        let (rom, symbols) = counter();
        let rom = Rom::from_bytes(rom).map_err(|e| e.to_string())?;
        Ok((
            Core::new(
                rom,
                Options {
                    model: Model::Dmg,
                    boot_rom: None,
                },
            ),
            symbols,
        ))
    }))
}
