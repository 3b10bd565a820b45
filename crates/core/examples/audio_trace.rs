//! Prints one CRC32 per ROM over every frame's `State` bytes and the audio samples it
//! produced, with seeded input: the before/after check for a change to the APU that must
//! leave state and sound byte-identical. Run it on the old and the new commit and diff:
//!
//! `cargo run --release -p backspin-core --example audio_trace -- [FRAMES] [FILTER]`
//!
//! The ROMs are the shared ones with sound (found like the tests find them); a missing one is
//! reported and skipped.

mod trace_common;

use backspin_core::{Buttons, Model};
use trace_common::{TraceArgs, test_rom_root, workload_core};

/// Each workload: ROM path under the test-ROM root and the model it runs on.
/// Besides these, every ROM in `SOUND_SUITES` (sorted by name).
const WORKLOADS: [(&str, Model); 8] = [
    ("homebrew/opus5.gb", Model::Dmg),
    ("homebrew/gejmboj.gb", Model::Dmg),
    ("homebrew/pocket.gb", Model::Dmg),
    ("homebrew/shocklobster.gb", Model::Dmg),
    ("homebrew/20y.gb", Model::Dmg),
    ("homebrew/thebouncingball.gb", Model::Dmg),
    ("homebrew/gb8.gb", Model::Cgb),
    ("homebrew-cgb/ucity/ucity.gbc", Model::Cgb),
];
/// Folders of sound test ROMs and the model they run on.
const SOUND_SUITES: [(&str, Model); 2] = [
    ("blargg/dmg_sound", Model::Dmg),
    ("blargg/cgb_sound", Model::Cgb),
];

fn main() {
    let args = TraceArgs::from_env();
    let Some(root) = test_rom_root() else {
        return;
    };
    let mut workloads: Vec<(String, Model)> = WORKLOADS
        .iter()
        .map(|&(name, model)| (name.to_string(), model))
        .collect();
    for (folder, model) in SOUND_SUITES {
        let mut names: Vec<String> = std::fs::read_dir(root.join(folder))
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".gb"))
            .map(|name| format!("{folder}/{name}"))
            .collect();
        names.sort();
        workloads.extend(names.into_iter().map(|name| (name, model)));
    }
    for (name, model) in workloads {
        let Some((mut core, mut script)) = workload_core(&root, &name, model, &args.filter) else {
            continue;
        };
        let mut crc = crc32fast::Hasher::new();
        let (mut samples, mut count, mut loud) = (Vec::new(), 0usize, 0usize);
        for _ in 0..args.frames {
            core.set_buttons(Buttons(script.next_frame()));
            core.run_frame();
            crc.update(core.state().as_bytes());
            samples.clear();
            core.output().audio.drain_i16(&mut samples);
            count += samples.len();
            loud += samples.iter().filter(|&&s| s != 0).count();
            crc.update(bytemuck::cast_slice(&samples));
        }
        println!(
            "{name} {model:?}: {} frames, {count} samples ({loud} non-zero), crc {:08x}",
            args.frames,
            crc.finalize()
        );
    }
}
