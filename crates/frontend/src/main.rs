// Wired into `backspin run --wav` by the lead; until then only its tests use it.
#[allow(dead_code)]
mod wav;

fn main() {
    println!("backspin: not yet");
}
