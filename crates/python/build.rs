//! Assembles the demo ROM (`assets/demo/demo.asm`) into `$OUT_DIR/demo.gb`:
//! `backspin.demo_rom()` gives scripts and the package's tests a cartridge to run.

fn main() {
    backspin_asm::embed_for_build_script("../../assets/demo/demo.asm", "demo.gb");
}
