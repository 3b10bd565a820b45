//! Command-line front end: `cargo run -p backspin-asm --example bsasm -- in.asm out.gb`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = args.as_slice() else {
        eprintln!("usage: bsasm INPUT.asm OUTPUT.gb");
        std::process::exit(2);
    };
    match backspin_asm::assemble_file(input) {
        Ok(rom) => {
            if let Err(e) = std::fs::write(output, rom) {
                eprintln!("{output}: {e}");
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
