//! Command-line front end: `cargo run -p backspin-asm --example bsasm -- in.asm out.gb`;
//! with `-g` also the labels (`out.sym`) and line table (`out.lines`) that `backspin debug`
//! reads for breakpoints by label and by source line.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let debug_info = args.iter().any(|a| a == "-g");
    let files: Vec<&String> = args.iter().filter(|a| *a != "-g").collect();
    let [input, output] = files.as_slice() else {
        eprintln!("usage: bsasm [-g] INPUT.asm OUTPUT.gb");
        std::process::exit(2);
    };
    let assembled = match backspin_asm::assemble_file_with_symbols(input) {
        Ok(assembled) => assembled,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let written = if debug_info {
        assembled.write_with_debug_info(std::path::Path::new(output))
    } else {
        std::fs::write(output, &assembled.rom)
    };
    if let Err(e) = written {
        eprintln!("{output}: {e}");
        std::process::exit(1);
    }
}
