//! P1/JOYP and the buttons the host has pressed.
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct JoypadState {
    /// FF00 P1 bits 4-5 as last written (0 selects a button group).
    pub select: u8,
    /// Pressed buttons, a [`Buttons`] mask.
    pub pressed: u8,
    /// The low nibble of P1 as last computed, for detecting high-to-low edges.
    pub lines: u8,
    pub _pad: [u8; 5],
}

/// Pressed buttons, one bit each (1 = pressed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Buttons(pub u8);

impl Buttons {
    pub const RIGHT: u8 = 1 << 0;
    pub const LEFT: u8 = 1 << 1;
    pub const UP: u8 = 1 << 2;
    pub const DOWN: u8 = 1 << 3;
    pub const A: u8 = 1 << 4;
    pub const B: u8 = 1 << 5;
    pub const SELECT: u8 = 1 << 6;
    pub const START: u8 = 1 << 7;
}
