//! Assembles the embedded demo ROM (`assets/demo/demo.asm`) into `$OUT_DIR/demo.gb`, so
//! `backspin` with no ROM argument has something to play.

fn main() {
    backspin_asm::embed_for_build_script("../../assets/demo/demo.asm", "demo.gb");
}
