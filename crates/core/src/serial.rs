//! SB, SC: the serial port. Only the internal clock runs; with no link partner the bits
//! shifted in are all ones.
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct SerialState {
    /// FF01 SB.
    pub sb: u8,
    /// FF02 SC (bits 7 and 0).
    pub sc: u8,
    /// Bits still to shift in the transfer in progress.
    pub bits_left: u8,
    pub _pad: [u8; 5],
}
