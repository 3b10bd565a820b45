//! Frames per second with the PPU rendering every frame (`cargo test --release -p
//! backspin-core --test ppu_speed -- --ignored --nocapture`). Prints figures; speed is not
//! asserted (style.md: speed lives in benches).

use backspin_core::{Core, Options, Rom};
use std::path::PathBuf;
use std::time::Instant;

#[test]
#[ignore = "timing run: use --release and --ignored"]
fn frames_per_second() {
    let root = match std::env::var_os("GB_TEST_ROMS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/test-roms"),
    };
    for name in [
        "homebrew/opus5.gb",
        "homebrew/gejmboj.gb",
        "blargg/cpu_instrs/cpu_instrs.gb",
    ] {
        let Ok(bytes) = std::fs::read(root.join(name)) else {
            println!("skipped: {name} not found under {}", root.display());
            continue;
        };
        let mut core = Core::new(Rom::from_bytes(bytes).expect("ROM parses"), Options::default());
        for _ in 0..60 {
            core.run_frame();
        }
        let frames = 3000;
        let start = Instant::now();
        for _ in 0..frames {
            core.run_frame();
        }
        let seconds = start.elapsed().as_secs_f64();
        println!("{name}: {:.0} fps", f64::from(frames) / seconds);
    }
}
