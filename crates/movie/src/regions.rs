//! The parts of `State` a checkpoint hashes separately, and field-by-field differences.
//!
//! Both come from the derived field list (`#[derive(StateFields)]`): a table of every field
//! (dotted name, byte offset in the in-memory `State`, element size and count, the format
//! minor that introduced it) is built once by walking a `State`. A region is a set of fields
//! chosen by name prefix, so a field added to `State` later falls into its struct's region
//! (or `system`) without a hand-kept offset anywhere.
//!
//! What a region hash covers is portable: each field's elements as little-endian bytes, in
//! declaration order, padding left out, and only fields the movie's save-state format minor
//! already had, so a movie keeps verifying after a minor bump adds fields.

use crate::hash::Xxh64;
use backspin_core::State;
use backspin_core::state_fields::{FieldInfo, Scalar, StateFields, Visitor};
use std::sync::OnceLock;

/// The regions, in the order checkpoints store them.
pub const REGIONS: [&str; 17] = [
    "cpu",
    "clock",
    "timer",
    "serial",
    "joypad",
    "dma",
    "ppu",
    "apu",
    "mbc",
    "cgb",
    "interrupts",
    "hram",
    "oam",
    "wram",
    "vram",
    "cart_ram",
    "system",
];
pub const REGION_COUNT: usize = REGIONS.len();

/// Which region the field named `name` (dotted path) belongs to.
fn region_of(name: &str) -> usize {
    let top = |prefix: &str| name == prefix || name.starts_with(&format!("{prefix}."));
    let region = if top("cpu") {
        "cpu"
    } else if name == "hw.m_cycles" || name == "hw.frames" {
        "clock"
    } else if name == "hw.interrupt_flag" || name == "hw.interrupt_enable" {
        "interrupts"
    } else if name == "hw.wram" || name == "hw.wram_banks" {
        "wram"
    } else if name == "hw.vram" || name == "hw.vram_bank1" {
        "vram"
    } else {
        let part = name.strip_prefix("hw.").unwrap_or(name);
        let part = part.split('.').next().unwrap_or(part);
        if part != "system" && REGIONS.contains(&part) {
            part
        } else {
            "system"
        }
    };
    REGIONS
        .iter()
        .position(|r| *r == region)
        .expect("every region name above is in REGIONS")
}

/// One field of `State`.
#[derive(Clone, Debug)]
pub struct Field {
    /// Dotted path, e.g. `hw.timer.counter`.
    pub name: String,
    /// Byte offset in the in-memory `State`.
    pub offset: usize,
    /// Bytes per element (1, 2, 4 or 8).
    pub element_size: usize,
    /// Elements (1 for a scalar).
    pub len: usize,
    /// Save-state format minor that introduced it (the innermost `since` on its path).
    pub since: u16,
    pub is_pad: bool,
    pub region: usize,
}

impl Field {
    fn bytes(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.element_size * self.len
    }
}

struct TableBuilder {
    base: usize,
    path: Vec<(&'static str, u16)>,
    fields: Vec<Field>,
}

impl Visitor for TableBuilder {
    fn enter(&mut self, field: &FieldInfo) {
        self.path.push((field.name, field.since));
    }
    fn leave(&mut self, _field: &FieldInfo) {
        self.path.pop();
    }
    fn scalars<T: Scalar>(&mut self, field: &FieldInfo, values: &mut [T]) {
        let mut name = String::new();
        let mut since = field.since;
        for (part, part_since) in &self.path {
            name.push_str(part);
            name.push('.');
            since = since.max(*part_since);
        }
        name.push_str(field.name);
        self.fields.push(Field {
            region: region_of(&name),
            name,
            offset: values.as_ptr() as usize - self.base,
            element_size: T::SIZE,
            len: values.len(),
            since,
            is_pad: field.is_pad(),
        });
    }
}

/// Every field of `State`, in declaration order.
pub fn fields() -> &'static [Field] {
    static TABLE: OnceLock<Vec<Field>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut state: Box<State> = bytemuck::zeroed_box();
        let base = std::ptr::from_ref::<State>(&state) as usize;
        let mut builder = TableBuilder {
            base,
            path: Vec::new(),
            fields: Vec::new(),
        };
        state.visit_fields(&mut builder);
        builder.fields
    })
}

/// The byte ranges hashed for one save-state format minor: (region, range), adjacent fields
/// of one region merged (on a little-endian host the in-memory bytes are the portable ones).
struct Plan {
    minor: u16,
    ranges: Vec<(usize, std::ops::Range<usize>, usize)>,
}

fn plan(minor: u16) -> Plan {
    let mut ranges: Vec<(usize, std::ops::Range<usize>, usize)> = Vec::new();
    for field in fields() {
        if field.is_pad || field.since > minor {
            continue;
        }
        let bytes = field.bytes();
        match ranges.last_mut() {
            Some((region, range, size))
                if *region == field.region
                    && range.end == bytes.start
                    && (cfg!(target_endian = "little") || *size == field.element_size) =>
            {
                range.end = bytes.end;
            }
            _ => ranges.push((field.region, bytes, field.element_size)),
        }
    }
    Plan { minor, ranges }
}

/// Hashes of every region of a `State`, as a checkpoint stores them.
pub type RegionHashes = [u64; REGION_COUNT];

/// Hashes states for one save-state format minor (the plan is built once).
pub struct StateHasher {
    plan: Plan,
}

impl StateHasher {
    pub fn new(minor: u16) -> StateHasher {
        StateHasher { plan: plan(minor) }
    }

    pub fn minor(&self) -> u16 {
        self.plan.minor
    }

    /// Each region's XXH64.
    pub fn regions(&self, state: &State) -> RegionHashes {
        let bytes = state.as_bytes();
        let mut hashers: [Xxh64; REGION_COUNT] = std::array::from_fn(|_| Xxh64::new());
        for (region, range, element_size) in &self.plan.ranges {
            let piece = &bytes[range.clone()];
            if cfg!(target_endian = "little") || *element_size == 1 {
                hashers[*region].update(piece);
            } else {
                // Big-endian host: each element as its little-endian bytes.
                for element in piece.chunks_exact(*element_size) {
                    let mut le = [0u8; 8];
                    for (i, byte) in element.iter().rev().enumerate() {
                        le[i] = *byte;
                    }
                    hashers[*region].update(&le[..*element_size]);
                }
            }
        }
        hashers.map(|h| h.finish())
    }

    /// The per-frame hash: 32 bits of the hash of the region hashes (a desync that slips
    /// through one frame's 32 bits is caught by the next frames and the checkpoint's 64-bit
    /// region hashes, since a diverged state stays diverged).
    pub fn frame_hash(&self, state: &State) -> u32 {
        combine(&self.regions(state))
    }
}

/// The frame hash of a set of region hashes.
pub fn combine(regions: &RegionHashes) -> u32 {
    let mut hasher = Xxh64::new();
    for hash in regions {
        hasher.update(&hash.to_le_bytes());
    }
    hasher.finish() as u32
}

/// One element that differs between two states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDifference {
    /// Dotted name with the element index for arrays, e.g. `hw.wram[513]`.
    pub field: String,
    pub region: &'static str,
    /// The value in the reference (good) state.
    pub expected: u64,
    /// The value in the replayed state.
    pub actual: u64,
    /// Bytes of the value (for printing).
    pub size: usize,
}

/// Every element of every field that differs between `expected` and `actual`, in
/// declaration order (at most `limit`, plus the total count).
pub fn differences(
    expected: &State,
    actual: &State,
    limit: usize,
) -> (Vec<FieldDifference>, usize) {
    let (a, b) = (expected.as_bytes(), actual.as_bytes());
    let mut found = Vec::new();
    let mut total = 0;
    for field in fields() {
        let range = field.bytes();
        if a[range.clone()] == b[range.clone()] {
            continue;
        }
        for index in 0..field.len {
            let at = field.offset + index * field.element_size;
            let element = at..at + field.element_size;
            if a[element.clone()] == b[element.clone()] {
                continue;
            }
            total += 1;
            if found.len() < limit {
                let name = if field.len == 1 {
                    field.name.clone()
                } else {
                    format!("{}[{index}]", field.name)
                };
                found.push(FieldDifference {
                    field: name,
                    region: REGIONS[field.region],
                    expected: native_value(&a[element.clone()]),
                    actual: native_value(&b[element]),
                    size: field.element_size,
                });
            }
        }
    }
    (found, total)
}

/// The dotted name (with index) of the field holding byte `offset` of the in-memory State.
pub fn field_at(offset: usize) -> Option<String> {
    let field = fields().iter().find(|f| f.bytes().contains(&offset))?;
    if field.len == 1 {
        Some(field.name.clone())
    } else {
        Some(format!(
            "{}[{}]",
            field.name,
            (offset - field.offset) / field.element_size
        ))
    }
}

/// An element's value from its in-memory (host-order) bytes.
fn native_value(bytes: &[u8]) -> u64 {
    let mut array = [0u8; 8];
    if cfg!(target_endian = "little") {
        array[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(array)
    } else {
        array[8 - bytes.len()..].copy_from_slice(bytes);
        u64::from_be_bytes(array)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_but_padding_is_in_one_field() {
        let size = size_of::<State>();
        let mut owner = vec![0u8; size];
        for field in fields() {
            for byte in field.bytes() {
                owner[byte] += 1;
            }
        }
        assert!(
            owner.iter().all(|&n| n == 1),
            "fields overlap or leave gaps"
        );
        assert_eq!(field_at(0).as_deref(), Some("cpu.pc"));
        let named = |n: &str| {
            fields()
                .iter()
                .find(|f| f.name == n)
                .map(|f| REGIONS[f.region])
        };
        for field in fields().iter().filter(|f| f.name.starts_with("hw.timer.")) {
            assert_eq!(REGIONS[field.region], "timer", "{}", field.name);
        }
        assert_eq!(named("hw.cart_ram"), Some("cart_ram"));
        assert_eq!(named("hw.wram_banks"), Some("wram"));
        assert_eq!(named("hw.interrupt_flag"), Some("interrupts"));
        assert_eq!(named("hw.m_cycles"), Some("clock"));
    }

    #[test]
    fn one_bit_changes_its_region_only() {
        let hasher = StateHasher::new(backspin_core::state_file::FORMAT_MINOR);
        let mut state: Box<State> = bytemuck::zeroed_box();
        let clean = hasher.regions(&state);
        for field in fields().iter().filter(|f| !f.is_pad) {
            let at = field.offset + (field.len - 1) * field.element_size;
            bytemuck::bytes_of_mut(&mut *state)[at] ^= 0x10;
            let dirty = hasher.regions(&state);
            for region in 0..REGION_COUNT {
                assert_eq!(
                    clean[region] != dirty[region],
                    region == field.region,
                    "{} in region {}",
                    field.name,
                    REGIONS[region]
                );
            }
            bytemuck::bytes_of_mut(&mut *state)[at] ^= 0x10;
            let (diffs, total) = differences(&state, &state, 4);
            assert!(diffs.is_empty() && total == 0);
        }
    }

    #[test]
    fn older_minors_hash_only_their_fields() {
        // A movie recorded under format 1.1 keeps verifying after 1.2 added the CGB fields.
        let (old, new) = (StateHasher::new(1), StateHasher::new(2));
        let mut state: Box<State> = bytemuck::zeroed_box();
        let (old_clean, new_clean) = (old.regions(&state), new.regions(&state));
        let vram1 = fields().iter().find(|f| f.name == "hw.vram_bank1").unwrap();
        assert_eq!(vram1.since, 2);
        bytemuck::bytes_of_mut(&mut *state)[vram1.offset + 5] ^= 1;
        assert_eq!(old.regions(&state), old_clean);
        assert_ne!(new.regions(&state), new_clean);
        assert_eq!(old.minor(), 1);
    }
}
