//! Assembles the embedded demo ROM (`assets/demo/demo.asm`) into `$OUT_DIR/demo.gb`, so
//! `backspin` with no ROM argument has something to play.

use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let source = manifest_dir.join("../../assets/demo/demo.asm");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed={}", source.display());
    let assembled = match backspin_asm::assemble_file_with_symbols(&source) {
        Ok(assembled) => assembled,
        Err(error) => panic!("the embedded demo does not assemble: {error}"),
    };
    for file in &assembled.files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    std::fs::write(out_dir.join("demo.gb"), &assembled.rom).expect("OUT_DIR is writable");
}
