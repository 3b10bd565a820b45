//! What the trace examples (`state_trace`, `audio_trace`) share: their arguments, the
//! test-ROM root, and a workload's core with its seeded input, so both traces run a ROM
//! the same way and their CRCs stay comparable across commits.

use std::path::{Path, PathBuf};

use backspin_core::{Core, Model, Options, Rom};
use backspin_test_support::InputScript;

/// The first two arguments, `[FRAMES] [FILTER]`: frames per ROM (3000 by default) and a
/// filter on "path Model".
pub struct TraceArgs {
    pub frames: u32,
    pub filter: String,
}

impl TraceArgs {
    pub fn from_env() -> TraceArgs {
        let args: Vec<String> = std::env::args().skip(1).collect();
        TraceArgs {
            frames: args
                .first()
                .and_then(|arg| arg.parse().ok())
                .unwrap_or(3000),
            filter: args.get(1).cloned().unwrap_or_default(),
        }
    }
}

/// The shared test-ROM root, found like the tests find it; None (after printing why)
/// when it is absent.
pub fn test_rom_root() -> Option<PathBuf> {
    match backspin_harness::locate_test_roms() {
        Ok(root) => Some(root),
        Err(reason) => {
            println!("skipped: {reason}");
            None
        }
    }
}

/// The core for workload `name` on `model` with the seeded input every trace uses, or
/// None (after printing why) when the filter leaves it out or the ROM is not readable.
pub fn workload_core(
    root: &Path,
    name: &str,
    model: Model,
    filter: &str,
) -> Option<(Core, InputScript)> {
    if !format!("{name} {model:?}").contains(filter) {
        return None;
    }
    let Ok(bytes) = std::fs::read(root.join(name)) else {
        println!("{name} {model:?}: skipped (not readable)");
        return None;
    };
    let rom = Rom::from_bytes(bytes).expect("shared test ROM parses");
    let core = Core::new(
        rom,
        Options {
            model,
            ..Options::default()
        },
    );
    Some((core, InputScript::new(0x5EED_7ACE)))
}
