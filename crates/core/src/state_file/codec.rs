//! The visitors that turn a [`State`] into its sections and back. Sections are nested like
//! the structs: a struct field is `name length (u8), name, payload length (u32 LE), payload`;
//! an integer field is its little-endian bytes, arrays element by element; padding is
//! zeros, and absent from minor 2 on (`FieldInfo::saved_len`). Names and lengths
//! make a misread impossible: a reader that expects another field stops with an error.

use super::StateError;
use crate::State;
use crate::state_fields::{FieldInfo, Scalar, StateFields, Visitor};

/// Appends the sections of `state` as format minor `minor` writes them (fields introduced
/// after `minor` are left out; only tests and fixtures write older minors), with the first
/// `cart_ram_bytes` of `hw.cart_ram` (the rest is zero: see [`CART_RAM`]).
/// Returns where the memories of `hw` (`wram`, `vram`, `cart_ram`, `oam`, `hram`) start
/// in `out`: they are stored as the chip holds them, so a BESS footer can point at them.
pub(crate) fn write_sections(
    state: &State,
    minor: u16,
    cart_ram_bytes: usize,
    out: &mut Vec<u8>,
) -> Vec<(&'static str, usize)> {
    // The walk needs `&mut` (one visitor trait serves reading and writing): walk a copy,
    // in a box kept per thread (a fresh box per save costs more in page faults than the
    // save itself).
    WALK_COPY.with(|cell| {
        let mut kept = cell.try_borrow_mut();
        let mut fresh: Option<Box<State>> = None;
        let copy: &mut State = match kept.as_deref_mut() {
            Ok(slot) => slot.get_or_insert_with(bytemuck::zeroed_box),
            Err(_) => fresh.insert(bytemuck::zeroed_box()),
        };
        *copy = *state;
        walk_for_writing(copy, minor, cart_ram_bytes, out)
    })
}

thread_local! {
    /// The copy `write_sections` walks, reused by the next save on this thread.
    static WALK_COPY: std::cell::RefCell<Option<Box<State>>> = const { std::cell::RefCell::new(None) };
}

fn walk_for_writing(
    copy: &mut State,
    minor: u16,
    cart_ram_bytes: usize,
    out: &mut Vec<u8>,
) -> Vec<(&'static str, usize)> {
    let mut writer = Writer {
        out,
        minor,
        cart_ram_bytes,
        open: Vec::new(),
        skip_depth: 0,
        memories: Vec::new(),
    };
    copy.visit_fields(&mut writer);
    writer.memories
}

/// Reads sections written by format minor `minor` into `state` (fields the minor lacks are
/// left as they are), `hw.cart_ram` holding `cart_ram_bytes` (zero after them). `data` is
/// exactly the sections' bytes.
pub(crate) fn read_sections(
    data: &[u8],
    minor: u16,
    cart_ram_bytes: usize,
    state: &mut State,
) -> Result<(), StateError> {
    let mut reader = Reader {
        data,
        pos: 0,
        minor,
        cart_ram_bytes,
        ends: vec![data.len()],
        path: Vec::new(),
        skip_depth: 0,
        error: None,
    };
    state.visit_fields(&mut reader);
    if let Some(error) = reader.error {
        return Err(error);
    }
    if reader.pos != data.len() {
        return Err(StateError::Corrupt {
            what: format!(
                "{} unexpected bytes after the last section",
                data.len() - reader.pos
            ),
        });
    }
    Ok(())
}

/// The dotted name of the field at byte `offset` of a `State` (`hw.ppu.ly`,
/// `hw.cart_ram[513]`), for reports that name the first differing byte.
pub fn field_name_at(offset: usize) -> Option<String> {
    let mut state: Box<State> = bytemuck::zeroed_box();
    let base = std::ptr::from_ref::<State>(&state) as usize;
    let mut locator = Locator {
        base,
        target: offset,
        path: Vec::new(),
        found: None,
    };
    state.visit_fields(&mut locator);
    locator.found
}

/// The one field stored at the cartridge's size rather than its own: `hw.cart_ram` is
/// sized for the largest cartridge (128 KiB), most have 8 KiB or none, and the file's
/// header says how much it holds.
const CART_RAM: &str = "cart_ram";

/// How many of `values` (a field directly inside `hw` when `in_hw`) the file holds.
fn stored_len(field: &FieldInfo, in_hw: bool, len: usize, cart_ram_bytes: usize) -> usize {
    if in_hw && field.name == CART_RAM {
        cart_ram_bytes.min(len)
    } else {
        len
    }
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
    minor: u16,
    cart_ram_bytes: usize,
    /// Where each open section's length goes.
    open: Vec<usize>,
    /// Above 0 inside a section the target minor lacks.
    skip_depth: u32,
    memories: Vec<(&'static str, usize)>,
}

/// The byte arrays of `HwState` a BESS footer points into.
const MEMORIES: [&str; 5] = ["wram", "vram", "cart_ram", "oam", "hram"];

impl Visitor for Writer<'_> {
    fn enter(&mut self, field: &FieldInfo) {
        if self.skip_depth > 0 || field.since > self.minor {
            self.skip_depth += 1;
            return;
        }
        let name = field.name.as_bytes();
        let name_len = u8::try_from(name.len()).expect("field names are under 256 bytes");
        self.out.push(name_len);
        self.out.extend_from_slice(name);
        self.open.push(self.out.len());
        self.out.extend_from_slice(&[0; 4]);
    }

    fn leave(&mut self, _field: &FieldInfo) {
        if self.skip_depth > 0 {
            self.skip_depth -= 1;
            return;
        }
        let at = self.open.pop().expect("leave matches enter");
        let len = u32::try_from(self.out.len() - at - 4).expect("a State is far below 4 GiB");
        self.out[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }

    fn scalars<T: Scalar>(&mut self, field: &FieldInfo, values: &mut [T]) {
        if self.skip_depth > 0 || field.since > self.minor {
            return;
        }
        let start = self.out.len();
        // Directly inside `hw` (one open section) and byte-sized: one of the memories.
        if T::SIZE == 1 && self.open.len() == 1 && MEMORIES.contains(&field.name) {
            self.memories.push((field.name, start));
        }
        if field.is_pad() {
            // Padding is zero in every valid state: saved as zeros, at its saved length.
            let len = field.saved_len(self.minor, values.len());
            self.out.resize(start + len * T::SIZE, 0);
            return;
        }
        let len = stored_len(
            field,
            self.open.len() == 1,
            values.len(),
            self.cart_ram_bytes,
        );
        let values = &values[..len];
        if T::SIZE == 1 {
            // Bytes are their own little-endian form: one copy (the memories are most of a
            // state, and a save must stay in microseconds).
            self.out.extend_from_slice(bytemuck::cast_slice(values));
            return;
        }
        self.out.resize(start + values.len() * T::SIZE, 0);
        for (bytes, &value) in self.out[start..]
            .chunks_exact_mut(T::SIZE)
            .zip(values.iter())
        {
            value.write_le(bytes);
        }
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    minor: u16,
    cart_ram_bytes: usize,
    /// End of each open section (the first entry: the end of `data`).
    ends: Vec<usize>,
    path: Vec<&'static str>,
    skip_depth: u32,
    /// The first problem; the walk goes on but reads nothing more.
    error: Option<StateError>,
}

impl Reader<'_> {
    fn path_to(&self, name: &str) -> String {
        let mut path = self.path.join(".");
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
        path
    }

    fn end(&self) -> usize {
        *self.ends.last().expect("the data's end is never popped")
    }

    /// `len` more bytes of the current section, or the error saying where they ran out.
    fn take(&mut self, len: usize, name: &str) -> Option<&[u8]> {
        let end = self.end();
        match self.pos.checked_add(len) {
            Some(stop) if stop <= end => {
                let bytes = &self.data[self.pos..stop];
                self.pos = stop;
                Some(bytes)
            }
            _ => {
                let at = self.path_to(name);
                self.error = Some(if end == self.data.len() {
                    StateError::Truncated { at }
                } else {
                    StateError::Corrupt {
                        what: format!("section {} ends inside field {at}", self.path.join(".")),
                    }
                });
                None
            }
        }
    }
}

impl Visitor for Reader<'_> {
    fn enter(&mut self, field: &FieldInfo) {
        if self.error.is_some() || self.skip_depth > 0 || field.since > self.minor {
            self.skip_depth += 1;
            return;
        }
        let Some(&[name_len]) = self.take(1, field.name) else {
            return;
        };
        let Some(name) = self.take(usize::from(name_len), field.name) else {
            return;
        };
        if name != field.name.as_bytes() {
            let found = String::from_utf8_lossy(name).into_owned();
            let expected = self.path_to(field.name);
            self.error = Some(StateError::Corrupt {
                what: format!("expected section {expected}, found {found:?}"),
            });
            return;
        }
        let Some(len) = self.take(4, field.name) else {
            return;
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        self.path.push(field.name);
        let (end, stop) = (self.end(), self.pos.saturating_add(len));
        if stop > end && end != self.data.len() {
            self.error = Some(StateError::Corrupt {
                what: format!(
                    "section {} is longer than the section around it",
                    self.path.join(".")
                ),
            });
            return;
        }
        // A section running past the end of a short file: read on to the field where the
        // bytes run out, so the error can say where the file was cut.
        self.ends.push(stop.min(end));
    }

    fn leave(&mut self, _field: &FieldInfo) {
        if self.skip_depth > 0 {
            self.skip_depth -= 1;
            return;
        }
        if self.error.is_some() {
            return;
        }
        let end = self.ends.pop().expect("leave matches enter");
        if self.pos != end {
            self.error = Some(StateError::Corrupt {
                what: format!(
                    "section {} has {} bytes this version does not know",
                    self.path.join("."),
                    end - self.pos
                ),
            });
        }
        self.path.pop();
    }

    fn scalars<T: Scalar>(&mut self, field: &FieldInfo, values: &mut [T]) {
        if self.error.is_some() || self.skip_depth > 0 || field.since > self.minor {
            return;
        }
        if field.is_pad() {
            values.fill(T::read_le(&[0; 8][..T::SIZE]));
            let len = field.saved_len(self.minor, values.len()) * T::SIZE;
            let Some(bytes) = self.take(len, field.name) else {
                return;
            };
            if let Some(index) = bytes.iter().position(|&byte| byte != 0) {
                let value = u64::from(bytes[index]);
                self.error = Some(StateError::OutOfRange {
                    field: format!("{}[byte {index}]", self.path_to(field.name)),
                    value,
                });
            }
            return;
        }
        let in_hw = self.path.len() == 1;
        let len = stored_len(field, in_hw, values.len(), self.cart_ram_bytes);
        let (stored, rest) = values.split_at_mut(len);
        rest.fill(T::read_le(&[0; 8][..T::SIZE]));
        let Some(bytes) = self.take(stored.len() * T::SIZE, field.name) else {
            return;
        };
        if T::SIZE == 1 {
            bytemuck::cast_slice_mut(stored).copy_from_slice(bytes);
        } else {
            for (value, bytes) in stored.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
                *value = T::read_le(bytes);
            }
        }
        let values = &*values;
        if !field.check.is_any()
            && let Some(index) = values.iter().position(|v| !field.check.allows(v.as_u64()))
        {
            let mut name = self.path_to(field.name);
            if values.len() > 1 {
                name.push_str(&format!("[{index}]"));
            }
            self.error = Some(StateError::OutOfRange {
                field: name,
                value: values[index].as_u64(),
            });
        }
    }
}

struct Locator {
    base: usize,
    target: usize,
    path: Vec<&'static str>,
    found: Option<String>,
}

impl Visitor for Locator {
    fn enter(&mut self, field: &FieldInfo) {
        self.path.push(field.name);
    }

    fn leave(&mut self, _field: &FieldInfo) {
        self.path.pop();
    }

    fn scalars<T: Scalar>(&mut self, field: &FieldInfo, values: &mut [T]) {
        let start = values.as_ptr() as usize - self.base;
        let len = size_of_val(values);
        if (start..start + len).contains(&self.target) {
            let mut name = self.path.join(".");
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(field.name);
            if values.len() > 1 {
                name.push_str(&format!("[{}]", (self.target - start) / T::SIZE));
            }
            self.found = Some(name);
        }
    }
}
