//! The APU. PLACEHOLDER until the APU lands.
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct ApuState {
    pub _reserved: [u8; 8],
}

/// Host-side audio produced by the APU (outside the State). PLACEHOLDER.
#[derive(Clone, Debug, Default)]
pub struct AudioOut {}
