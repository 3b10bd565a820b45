//! Frames per second with the PPU rendering every frame (`cargo test --release -p
//! backspin-core --test ppu_speed -- --ignored --nocapture`). Prints figures; speed is not
//! asserted (`docs/style.md`: speed lives in benches).

use backspin_core::{Core, Options, Rom};
use std::time::Instant;

/// Time this thread has spent on a CPU (Linux `/proc/thread-self/schedstat`), which the
/// other processes on a shared machine do not inflate.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos / 1e9)
}

#[test]
#[ignore = "timing run: use --release and --ignored"]
fn frames_per_second() {
    let root = match backspin_harness::locate_test_roms() {
        Ok(root) => root,
        Err(reason) => return backspin_test_support::skip_or_fail(reason),
    };
    // PPU_SPEED_ROM=substring runs only the matching workload.
    let only = std::env::var("PPU_SPEED_ROM").ok();
    for name in [
        "homebrew/opus5.gb",
        "homebrew/gejmboj.gb",
        "blargg/cpu_instrs/cpu_instrs.gb",
    ] {
        if only.as_deref().is_some_and(|only| !name.contains(only)) {
            continue;
        }
        let Ok(bytes) = std::fs::read(root.join(name)) else {
            backspin_test_support::skip_or_fail(format!(
                "{name} not found under {}",
                root.display()
            ));
            continue;
        };
        let mut core = Core::new(
            Rom::from_bytes(bytes).expect("ROM parses"),
            Options::default(),
        );
        for _ in 0..60 {
            core.run_frame();
        }
        let frames = 3000;
        let start = Instant::now();
        let cpu_start = thread_cpu_seconds();
        for _ in 0..frames {
            core.run_frame();
        }
        let seconds = start.elapsed().as_secs_f64();
        let cpu = thread_cpu_seconds()
            .zip(cpu_start)
            .map(|(end, start)| end - start);
        println!(
            "{name}: {:.0} fps wall, {} fps on-CPU",
            f64::from(frames) / seconds,
            cpu.map_or("?".to_string(), |c| format!("{:.0}", f64::from(frames) / c))
        );
    }
}

/// Prints a hash of the state and frame after 600 frames of each workload, so two builds
/// can be compared by hand (the fast path on and off is compared automatically, every
/// frame, by `crates/harness/tests/render_oracle.rs`).
#[test]
#[ignore = "manual comparison of fast paths on/off"]
fn state_hashes() {
    let root = match backspin_harness::locate_test_roms() {
        Ok(root) => root,
        Err(reason) => return backspin_test_support::skip_or_fail(reason),
    };
    for name in [
        "homebrew/opus5.gb",
        "homebrew/gejmboj.gb",
        "homebrew/pocket.gb",
        "homebrew/20y.gb",
        "acid/dmg-acid2.gb",
        "mealybug/ppu/m3_lcdc_tile_sel_change.gb",
        "mealybug/ppu/m3_wx_4_change_sprites.gb",
    ] {
        let Ok(bytes) = std::fs::read(root.join(name)) else {
            backspin_test_support::skip_or_fail(format!("{name} not found"));
            continue;
        };
        let mut core = Core::new(
            Rom::from_bytes(bytes).expect("ROM parses"),
            Options::default(),
        );
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for _ in 0..600 {
            core.run_frame();
            for &b in core.frame().iter().chain(core.state().as_bytes()) {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
        }
        println!("{name}: {hash:016x}");
    }
}
