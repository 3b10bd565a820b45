//! Assembles the frontend's demo (`assets/demo/demo.asm`) into `$OUT_DIR/demo.gb`: what the
//! core runs when the frontend starts it without content (`supports_no_game`).

fn main() {
    backspin_asm::embed_for_build_script("../../assets/demo/demo.asm", "demo.gb");
}
