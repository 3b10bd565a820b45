//! The PPU. PLACEHOLDER until the dot-accurate PPU lands.
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct PpuState {
    pub _reserved: [u8; 8],
}
