//! What the movie test files share: drawing a single-bit fault.

use backspin_movie::Fault;
use backspin_movie::regions::fields;
use backspin_test_support::SplitMix64;

/// A one-bit fault at a random cycle before `final_cycle`, in a field drawn uniformly
/// (padding aside), then an element and a byte of it: faults drawn by byte would land
/// mostly in the 128 KiB of cartridge RAM most games never use.
pub fn draw_field_fault(rng: &mut SplitMix64, final_cycle: u64) -> Fault {
    let candidates: Vec<_> = fields().iter().filter(|f| !f.is_pad).collect();
    let field = candidates[rng.range(0, candidates.len() as u64 - 1) as usize];
    let element = rng.range(0, field.len as u64 - 1) as usize;
    let byte = rng.range(0, field.element_size as u64 - 1) as usize;
    Fault {
        cycle: rng.range(0, final_cycle - 1),
        offset: field.offset + element * field.element_size + byte,
        bit: rng.range(0, 7) as u8,
    }
}
