//! P1/JOYP and the buttons the host has pressed.

use crate::io;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, StateFields)]
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

impl JoypadState {
    pub fn post_boot() -> JoypadState {
        // The boot ROM leaves both groups selected: P1 reads 0xCF (Mooneye `boot_hwio-dmgABCmgb`).
        JoypadState {
            select: 0x00,
            pressed: 0,
            lines: 0x0F,
            _pad: [0; 5],
        }
    }

    /// P1's low nibble: 0 where a selected button is pressed.
    fn compute_lines(&self) -> u8 {
        let mut lines = 0x0F;
        if self.select & 0x10 == 0 {
            lines &= !self.pressed & 0x0F;
        }
        if self.select & 0x20 == 0 {
            lines &= !(self.pressed >> 4) & 0x0F;
        }
        lines
    }

    /// Recomputes the lines; any line going low requests the joypad interrupt.
    fn update(&mut self, interrupt_flag: &mut u8) {
        let lines = self.compute_lines();
        if self.lines & !lines & 0x0F != 0 {
            *interrupt_flag |= io::INT_JOYPAD;
        }
        self.lines = lines;
    }

    pub fn read(&self) -> u8 {
        0xC0 | (self.select & 0x30) | self.compute_lines()
    }

    pub fn write(&mut self, value: u8, interrupt_flag: &mut u8) {
        self.select = value & 0x30;
        self.update(interrupt_flag);
    }

    pub fn set_pressed(&mut self, pressed: u8, interrupt_flag: &mut u8) {
        self.pressed = pressed;
        self.update(interrupt_flag);
    }
}
