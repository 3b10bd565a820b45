//! OAM DMA: 160 bytes copied one per M-cycle, with the CPU locked out of the buses it uses.
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct DmaState {
    /// FF46 DMA as last written.
    pub source_high: u8,
    /// 1 while a transfer is copying bytes (OAM blocked for the CPU).
    pub active: u8,
    /// Next byte to copy, 0..160.
    pub index: u8,
    /// M-cycles until a requested transfer starts copying (0 = none requested).
    pub start_delay: u8,
    /// The high byte of the source of the transfer that is copying.
    pub active_source_high: u8,
    /// The byte most recently copied (what a conflicting CPU read sees).
    pub last_byte: u8,
    pub _pad: [u8; 2],
}
