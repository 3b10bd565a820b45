//! The field visitor behind the save-state file: every struct of [`State`](crate::State)
//! derives [`StateFields`] (`backspin-state-derive`), which walks its fields in declaration
//! order, by name. Writers, readers, the coverage test and "which field differs" reports
//! are all visitors, so none of them keeps a field list of its own.
//!
//! Only the file format and tools use this; the emulation never does.

pub use backspin_state_derive::StateFields;

/// What a file may hold in a field; the loader rejects anything else.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// Every value is valid.
    Any,
    /// A raw enum, flag or bounded counter: values `0..bound`.
    Below(u64),
    /// Padding, kept zero.
    Zero,
    /// A raw enum with gaps between its discriminants: the function says which are used.
    Valid(fn(u64) -> bool),
}

impl Check {
    /// Whether every value passes (the reader's fast path).
    pub fn is_any(self) -> bool {
        matches!(self, Check::Any)
    }

    /// Whether `value` is allowed.
    pub fn allows(self, value: u64) -> bool {
        match self {
            Check::Any => true,
            Check::Below(bound) => value < bound,
            Check::Zero => value == 0,
            Check::Valid(valid) => valid(value),
        }
    }
}

/// A field as the derive describes it.
#[derive(Clone, Copy, Debug)]
pub struct FieldInfo {
    /// The field's name in its struct.
    pub name: &'static str,
    /// The format minor version that introduced the field (0: present since 1.0).
    pub since: u16,
    /// What a file may hold in it.
    pub check: Check,
    /// For a `_pad` whose length changed: its length in elements in files of minors before
    /// [`PADS_DROPPED_MINOR`] (0: the current length).
    pub old_pad_len: usize,
}

/// The first format minor that does not save padding: pads are always zero, so saving them
/// only tied the format to their sizes (1.2 resized two of them). Older files hold them at
/// their length then and must still load.
pub const PADS_DROPPED_MINOR: u16 = 2;

impl FieldInfo {
    /// Whether the field is padding (`_pad*`, kept zero).
    pub fn is_pad(&self) -> bool {
        matches!(self.check, Check::Zero)
    }

    /// How many elements of this field a file of format minor `minor` holds, where the
    /// struct has `len`: pads are absent from minor 2 on and may have had another length
    /// before.
    pub fn saved_len(&self, minor: u16, len: usize) -> usize {
        if !self.is_pad() {
            len
        } else if minor >= PADS_DROPPED_MINOR {
            0
        } else if self.old_pad_len != 0 {
            self.old_pad_len
        } else {
            len
        }
    }
}

/// A struct whose fields can be walked by a [`Visitor`] (derived, never written by hand).
pub trait StateFields {
    /// Walks every field, depth first, in declaration order.
    fn visit_fields<V: Visitor>(&mut self, visitor: &mut V);
}

/// Receives every field of a [`StateFields`] struct, depth first, in declaration order.
/// Values are passed `&mut` so that one walk serves writers (which read them) and readers
/// (which set them).
pub trait Visitor {
    /// A nested struct begins; its fields follow until the matching `leave`.
    fn enter(&mut self, field: &FieldInfo);
    /// The nested struct `field` ends.
    fn leave(&mut self, field: &FieldInfo);
    /// One integer, or an array of them (element by element in the file).
    fn scalars<T: Scalar>(&mut self, field: &FieldInfo, values: &mut [T]);
}

/// A field type the derive can visit: a scalar, an array of scalars, or a derived struct.
pub trait StateField {
    /// Hands this field (with its description `field`) to `visitor`.
    fn visit_field<V: Visitor>(&mut self, field: &FieldInfo, visitor: &mut V);
}

/// A fixed-size integer, stored little-endian in files.
pub trait Scalar: bytemuck::Pod {
    /// Bytes in the file.
    const SIZE: usize;
    /// Writes the little-endian bytes into `out` (exactly `SIZE` bytes).
    fn write_le(self, out: &mut [u8]);
    /// From exactly `SIZE` little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
    /// The value for [`Check`] and messages (sign-extended for signed types, which only
    /// ever use [`Check::Any`]).
    fn as_u64(self) -> u64;
}

macro_rules! scalar {
    ($($ty:ty),*) => {$(
        impl Scalar for $ty {
            const SIZE: usize = size_of::<$ty>();
            #[inline]
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn read_le(bytes: &[u8]) -> Self {
                let mut array = [0; size_of::<$ty>()];
                array.copy_from_slice(bytes);
                <$ty>::from_le_bytes(array)
            }
            #[inline]
            fn as_u64(self) -> u64 {
                self as u64
            }
        }
        impl StateField for $ty {
            #[inline]
            fn visit_field<V: Visitor>(&mut self, field: &FieldInfo, visitor: &mut V) {
                visitor.scalars(field, std::slice::from_mut(self));
            }
        }
    )*};
}
scalar!(u8, u16, u32, u64, i32);

impl<T: Scalar, const N: usize> StateField for [T; N] {
    #[inline]
    fn visit_field<V: Visitor>(&mut self, field: &FieldInfo, visitor: &mut V) {
        visitor.scalars(field, &mut self[..]);
    }
}
