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

mod trace_common;

use backspin_core::{Buttons, Model};
use trace_common::{TraceArgs, test_rom_root, workload_core};

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
    let args = TraceArgs::from_env();
    let hash = std::env::args().nth(3).is_none_or(|arg| arg != "nohash");
    let Some(root) = test_rom_root() else {
        return;
    };
    for (name, model) in WORKLOADS {
        let Some((mut core, mut script)) = workload_core(&root, name, model, &args.filter) else {
            continue;
        };
        let mut crc = crc32fast::Hasher::new();
        for _ in 0..args.frames {
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
            "{name} {model:?}: {} frames, m_cycles {}, crc {:08x}",
            args.frames,
            core.m_cycles(),
            crc.finalize()
        );
    }
}
