//! Assembles a ROM, runs it with scripted input and saves screenshots: for looking at our
//! ROMs while writing them.
//!
//! `cargo run -p backspin-asm --example shot -- SOURCE.asm OUT_PREFIX FRAME[:BUTTONS]...`
//! runs frame by frame; at each listed frame it sets the buttons (a hex `Buttons` mask,
//! default unchanged) and writes `OUT_PREFIX-FRAME.png` (gray shades, 2x scale).
use backspin_core::{Buttons, Core, Options, Rom};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: shot SOURCE.asm OUT_PREFIX FRAME[:BUTTONS]...");
        std::process::exit(2);
    }
    let rom = backspin_asm::assemble_file(&args[1]).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut core = Core::new(Rom::from_bytes(rom).expect("valid ROM"), Options::default());
    let mut frame = 0u32;
    for point in &args[3..] {
        let (at, buttons) = match point.split_once(':') {
            Some((f, b)) => (
                f.parse::<u32>().expect("frame"),
                Some(u8::from_str_radix(b, 16).expect("hex buttons")),
            ),
            None => (point.parse().expect("frame"), None),
        };
        while frame < at {
            core.run_frame();
            frame += 1;
        }
        if let Some(b) = buttons {
            core.set_buttons(Buttons(b));
        }
        let path = format!("{}-{at}.png", args[2]);
        let mut pixels = Vec::with_capacity(320 * 288);
        for y in 0..288 {
            for x in 0..320 {
                pixels.push(
                    [0xFF, 0xAA, 0x55, 0x00][usize::from(core.frame()[y / 2 * 160 + x / 2] & 3)],
                );
            }
        }
        let file = std::fs::File::create(&path).expect("create PNG");
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), 320, 288);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .and_then(|mut w| w.write_image_data(&pixels))
            .expect("write PNG");
        println!("{path}");
    }
}
