//! Prints one CRC32 per ROM over every frame's `State` bytes and picture (shades and RGB),
//! with seeded input: the before/after check for a speed change that must leave emulation
//! byte-identical. Run it on the old and the new commit and diff the output:
//!
//! `cargo run --release -p backspin-core --example state_trace -- [FRAMES] [FILTER] [nohash]`
//!
//! FILTER keeps the workloads whose "path Model" contains it; `nohash` skips the CRC (a
//! plain run, for profilers such as `valgrind --tool=cachegrind`).
//!
//! The ROMs are the shared homebrew set (found like the tests find them); a missing one is
//! reported and skipped.

use backspin_core::{Buttons, Core, Model, Options, Rom};
use backspin_test_support::InputScript;

/// Each workload: ROM path under the test-ROM root and the model it runs on.
const WORKLOADS: [(&str, Model); 10] = [
    ("homebrew/opus5.gb", Model::Dmg),
    ("homebrew/gejmboj.gb", Model::Dmg),
    ("blargg/cpu_instrs/cpu_instrs.gb", Model::Dmg),
    ("homebrew/pocket.gb", Model::Dmg),
    ("homebrew/shocklobster.gb", Model::Dmg),
    ("homebrew/20y.gb", Model::Dmg),
    ("homebrew/opus5.gb", Model::Cgb),
    ("homebrew/gb8.gb", Model::Cgb),
    ("homebrew-cgb/ucity/ucity.gbc", Model::Cgb),
    ("acid/cgb-acid2.gbc", Model::Cgb),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: u32 = args
        .first()
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(3000);
    let filter = args.get(1).map_or("", String::as_str);
    let hash = args.get(2).is_none_or(|arg| arg != "nohash");
    let root = match backspin_harness::locate_test_roms() {
        Ok(root) => root,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
    };
    for (name, model) in WORKLOADS {
        if !format!("{name} {model:?}").contains(filter) {
            continue;
        }
        let Ok(bytes) = std::fs::read(root.join(name)) else {
            println!("{name} {model:?}: skipped (not readable)");
            continue;
        };
        let rom = Rom::from_bytes(bytes).expect("shared test ROM parses");
        let mut core = Core::new(
            rom,
            Options {
                model,
                ..Options::default()
            },
        );
        let mut script = InputScript::new(0x5EED_7ACE);
        let mut crc = crc32fast::Hasher::new();
        for _ in 0..frames {
            core.set_buttons(Buttons(script.next_frame()));
            core.run_frame();
            if !hash {
                continue;
            }
            crc.update(core.state().as_bytes());
            crc.update(core.frame());
            crc.update(bytemuck::cast_slice(&core.frame_rgb()[..]));
        }
        println!(
            "{name} {model:?}: {frames} frames, m_cycles {}, crc {:08x}",
            core.m_cycles(),
            crc.finalize()
        );
    }
}
