//! Where do the rewind bytes go? Plays a ROM with the bench's input script and reports,
//! per state region, how many bytes change per frame, and how the records split into token
//! headers, literals and LZ4 savings. `cargo run --release -p backspin-rewind --example
//! delta_anatomy -- ROM [SECONDS]`

use backspin_core::run_one_frame;
use backspin_core::state::{ApuState, SynthState};
use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::testing::{Encoder, get_varint, tokenize_diff};
use backspin_test_support::InputScript;
use std::mem::offset_of;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("ROM path");
    let seconds: u64 = args.next().map_or(60, |s| s.parse().expect("seconds"));
    let rom = Rom::from_bytes(std::fs::read(&path).expect("read ROM")).expect("ROM");
    let mut core = Core::new(rom, Options::default());
    let mut script = InputScript::new(1);
    let hw = offset_of!(State, hw);
    let apu = hw + offset_of!(backspin_core::state::HwState, apu);
    let regions: Vec<(&str, usize)> = vec![
        ("cpu", 0),
        ("hw.counters", hw),
        (
            "hw.timer",
            hw + offset_of!(backspin_core::state::HwState, timer),
        ),
        (
            "hw.ppu",
            hw + offset_of!(backspin_core::state::HwState, ppu),
        ),
        (
            "hw.apu",
            hw + offset_of!(backspin_core::state::HwState, apu),
        ),
        ("apu.centre", apu + offset_of!(SynthState, centre_ring)),
        ("apu.steps", apu + offset_of!(SynthState, centre_steps)),
        ("apu.integr", apu + offset_of!(SynthState, integrator_coded)),
        ("apu.hp", apu + offset_of!(SynthState, highpass_coded)),
        ("apu.level", apu + offset_of!(SynthState, level_coded)),
        ("apu.offset..", apu + offset_of!(SynthState, offset_ticks)),
        ("apu.square1", apu + offset_of!(ApuState, square1)),
        ("apu.square2", apu + offset_of!(ApuState, square2)),
        ("apu.noise", apu + offset_of!(ApuState, noise)),
        ("apu.wave", apu + offset_of!(ApuState, wave)),
        ("apu.clocks", apu + offset_of!(ApuState, flush_clock)),
        ("apu.sweep..", apu + offset_of!(ApuState, sweep_shadow)),
        ("apu.regs", apu + offset_of!(ApuState, regs)),
        (
            "hw.mbc..",
            hw + offset_of!(backspin_core::state::HwState, mbc),
        ),
        ("hram", hw + offset_of!(backspin_core::state::HwState, hram)),
        ("oam", hw + offset_of!(backspin_core::state::HwState, oam)),
        ("wram", hw + offset_of!(backspin_core::state::HwState, wram)),
        ("vram", hw + offset_of!(backspin_core::state::HwState, vram)),
        (
            "cart_ram",
            hw + offset_of!(backspin_core::state::HwState, cart_ram),
        ),
    ];
    let len = size_of::<State>();
    let mut changed = vec![0u64; regions.len()];
    let mut prev = core.state().as_bytes().to_vec();
    let mut encoder = Encoder::new(len);
    let (mut token_bytes, mut record_bytes, mut literal_bytes, mut tokens) =
        (0u64, 0u64, 0u64, 0u64);
    let frames = frames_in(seconds);
    for _ in 0..frames {
        core.set_buttons(backspin_core::Buttons(script.next_frame()));
        run_one_frame(&mut core);
        let cur = core.state().as_bytes();
        for (i, (a, b)) in prev.iter().zip(cur).enumerate() {
            if a != b {
                let r = regions.iter().rposition(|&(_, start)| start <= i).unwrap();
                changed[r] += 1;
            }
        }
        let mut t = Vec::new();
        tokenize_diff(&mut prev.clone(), cur, &mut t, false);
        token_bytes += t.len() as u64;
        let mut rest = &t[..];
        while !rest.is_empty() {
            let _gap = get_varint(&mut rest).unwrap();
            let l = get_varint(&mut rest).unwrap() as usize;
            literal_bytes += l as u64;
            tokens += 1;
            rest = &rest[l..];
        }
        record_bytes += encoder.encode_delta(&mut prev, cur).len() as u64;
    }
    let per = |x: u64| x as f64 / frames as f64;
    println!("{path}: {frames} frames, state {len} bytes");
    for (r, (name, start)) in regions.iter().enumerate() {
        println!(
            "  {name:12} @{start:6}: {:8.1} changed bytes/frame",
            per(changed[r])
        );
    }
    println!(
        "  tokens/frame {:.1}, literal bytes/frame {:.1}, token stream/frame {:.1}, record/frame {:.1} ({:.2} KiB/s)",
        per(tokens),
        per(literal_bytes),
        per(token_bytes),
        per(record_bytes),
        per(record_bytes) * 59.7275 / 1024.0
    );
}

/// Emulated frames in `seconds`.
fn frames_in(seconds: u64) -> u64 {
    (seconds * backspin_core::M_CYCLES_PER_SECOND).div_ceil(backspin_core::M_CYCLES_PER_FRAME)
}
