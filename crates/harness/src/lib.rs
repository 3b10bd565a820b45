//! Test-ROM runner shared by `backspin test` and `cargo test`.
