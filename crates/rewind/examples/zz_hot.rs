use backspin_core::{Core, Options, Rom};
use backspin_rewind::bench::{InputScript, run_one_frame};
use std::collections::HashMap;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let from: u32 = std::env::args().nth(2).unwrap().parse().unwrap();
    let mut core = Core::new(
        Rom::from_bytes(std::fs::read(&path).unwrap()).unwrap(),
        Options::default(),
    );
    let mut script = InputScript::new(1);
    let n = core.state().as_bytes().len();
    let mut p1 = core.state().as_bytes().to_vec();
    let mut hist: Vec<HashMap<u8, u32>> = vec![HashMap::new(); n];
    let mut seq: Vec<Vec<u8>> = vec![Vec::new(); n];
    let frames = 600;
    for f in 0..from + frames {
        core.set_buttons(backspin_core::Buttons(script.next_frame()));
        run_one_frame(&mut core);
        let cur = core.state().as_bytes();
        if f >= from {
            for i in 0..n {
                let d = cur[i].wrapping_sub(p1[i]);
                *hist[i].entry(d).or_default() += 1;
                if seq[i].len() < 24 {
                    seq[i].push(d);
                }
            }
        }
        p1.copy_from_slice(cur);
    }
    let (mut hot, mut modehits, mut nonzero, mut zero_mode) = (0, 0u32, 0u32, 0);
    for i in 0..n {
        let z = *hist[i].get(&0).unwrap_or(&0);
        if frames - z >= frames * 150 / 256 {
            hot += 1;
            let (&m, &c) = hist[i].iter().max_by_key(|e| e.1).unwrap();
            if m == 0 {
                zero_mode += 1;
            }
            modehits += c;
            nonzero += frames - z;
            if hot % 10 == 0 {
                println!(
                    "{i:5} mode {m:02X} x{c} distinct {} seq {:02X?}",
                    hist[i].len(),
                    seq[i]
                );
            }
        }
    }
    println!(
        "hot {hot} mode-hit share {:.3} nonzero share {:.3} zero-mode {zero_mode}",
        modehits as f64 / (hot * frames) as f64,
        nonzero as f64 / (hot * frames) as f64
    );
}
