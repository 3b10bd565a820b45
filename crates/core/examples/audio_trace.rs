//! Prints one CRC32 per ROM over every frame's `State` bytes and the audio samples it
//! produced, with seeded input: the before/after check for a change to the APU that must
//! leave state and sound byte-identical. Run it on the old and the new commit and diff:
//!
//! `cargo run --release -p backspin-core --example audio_trace -- [FRAMES] [FILTER]`
//!
//! The ROMs are the shared ones with sound (found like the tests find them); a missing one is
//! reported and skipped.

use backspin_core::{Buttons, Core, Model, Options, Rom};
use backspin_test_support::InputScript;

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: u32 = args
        .first()
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(3000);
    let filter = args.get(1).map_or("", String::as_str);
    let root = match backspin_harness::locate_test_roms() {
        Ok(root) => root,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
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
        if !format!("{name} {model:?}").contains(filter) {
            continue;
        }
        let Ok(bytes) = std::fs::read(root.join(&name)) else {
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
        let (mut samples, mut count, mut loud) = (Vec::new(), 0usize, 0usize);
        for _ in 0..frames {
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
            "{name} {model:?}: {frames} frames, {count} samples ({loud} non-zero), crc {:08x}",
            crc.finalize()
        );
    }
}
