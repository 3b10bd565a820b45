use backspin_core::{Buttons, Core, Options, Rom, run_one_frame};
use backspin_test_support::InputScript;
fn main() {
    for path in std::env::args().skip(1) {
        let rom = Rom::from_bytes(std::fs::read(&path).unwrap()).unwrap();
        let mut core = Core::new(rom, Options::default());
        let mut script = InputScript::new(1);
        let mut prev = core.state().as_bytes()[..10664].to_vec();
        let (mut zero, mut uni, mut equal, mut total, mut eqzero) = (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut page_zero = [0u64; 6];
        for f in 0..7200 {
            core.set_buttons(Buttons(script.next_frame()));
            run_one_frame(&mut core);
            let cur = &core.state().as_bytes()[..10664];
            if f >= 600 {
                for (b, (c, p)) in cur.chunks(64).zip(prev.chunks(64)).enumerate() {
                    total += 1;
                    let z = p.iter().all(|&x| x == 0);
                    if z {
                        zero += 1;
                        page_zero[b * 64 / 2048] += 1;
                    }
                    if p.iter().all(|&x| x == p[0]) {
                        uni += 1;
                    }
                    if c == p {
                        equal += 1;
                        if z {
                            eqzero += 1;
                        }
                    }
                }
            }
            prev.copy_from_slice(cur);
        }
        println!(
            "{path}: blocks {total} zero {:.1}% uniform {:.1}% equal {:.1}% equal&zero {:.1}% zero per page {:?}",
            100.0 * zero as f64 / total as f64,
            100.0 * uni as f64 / total as f64,
            100.0 * equal as f64 / total as f64,
            100.0 * eqzero as f64 / total as f64,
            page_zero.iter().map(|&z| z / 6600).collect::<Vec<_>>()
        );
    }
}
