//! Internals that this crate's own tests and examples drive directly: the ring buffer alone
//! (`tests/synthetic.rs`) and the delta tokenizer (`examples/delta_anatomy.rs`, which
//! measures what each part of a frame's delta costs). Hidden from the docs and not an API:
//! an embedder uses [`Timeline`](crate::Timeline). Nothing here is covered by semantic
//! versioning.

pub use crate::codec::{Encoder, get_varint, tokenize_diff};
pub use crate::ring::Ring;
