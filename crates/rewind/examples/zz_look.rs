use backspin_core::{Core, Options, Rom};
use backspin_rewind::bench::{InputScript, run_one_frame};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let from: u32 = std::env::args().nth(2).unwrap().parse().unwrap();
    let mut core = Core::new(
        Rom::from_bytes(std::fs::read(&path).unwrap()).unwrap(),
        Options::default(),
    );
    let mut script = InputScript::new(1);
    let mut p1 = core.state().as_bytes().to_vec();
    let mut blocks = std::collections::BTreeMap::<usize, u32>::new();
    for f in 0..from + 300 {
        core.set_buttons(backspin_core::Buttons(script.next_frame()));
        run_one_frame(&mut core);
        let cur = core.state().as_bytes();
        if f >= from {
            let mut line = String::new();
            for i in 1520..cur.len() {
                if cur[i] != p1[i] {
                    *blocks.entry((i - 1520) / 64).or_default() += 1;
                    if true {
                        line += &format!(
                            " {:04X}:{:02X}>{:02X}",
                            if i < 9712 {
                                0xC000 + i - 1520
                            } else {
                                0x8000 + i - 9712
                            },
                            p1[i],
                            cur[i]
                        );
                    }
                }
            }
            let n = (1520..cur.len()).filter(|&i| cur[i] != p1[i]).count();
            print!("{n} ");
            if (f == from + 200 || f == from + 201) && std::env::var("SHOWN").is_err() {
                println!("\nframe {f}:{line}\n");
            }
        }
        p1.copy_from_slice(cur);
    }
    let mut v: Vec<_> = blocks.into_iter().collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.1));
    for (b, c) in v.iter().take(40) {
        let a = 1520 + b * 64;
        print!(
            " {:04X}:{:.1}",
            if a < 9712 {
                0xC000 + b * 64
            } else {
                0x8000 + a - 9712
            },
            *c as f64 / 300.0
        );
    }
    println!();
}
