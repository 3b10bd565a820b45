fn main() {
    println!("backspin: not yet");
}
