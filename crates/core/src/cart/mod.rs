//! Cartridges: the immutable ROM with its parsed header, and the mapper (MBC) state that lives
//! in [`State`](crate::State).
//!
//! PLACEHOLDER: ROM-only carts, no header validation. The cartridge work replaces this file's
//! internals but keeps the public functions below.

use bytemuck::{Pod, Zeroable};
use std::sync::Arc;

/// Cartridge RAM big enough for the largest supported cartridge (MBC5, 128 KiB).
pub const CART_RAM_MAX: usize = 128 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum RomError {
    #[error("file is {len} bytes; a Game Boy ROM is at least 32 KiB")]
    TooSmall { len: usize },
}

/// Mapper registers (and the MBC3 real-time clock). Any bit pattern is valid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct MbcState {
    pub _reserved: [u8; 8],
}

/// An immutable ROM image with its parsed header.
#[derive(Clone, Debug)]
pub struct Rom {
    bytes: Arc<[u8]>,
}

impl Rom {
    /// Parses and validates a ROM image. Never panics, whatever the bytes.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Rom, RomError> {
        if bytes.len() < 0x8000 {
            return Err(RomError::TooSmall { len: bytes.len() });
        }
        Ok(Rom {
            bytes: bytes.into(),
        })
    }

    /// The raw image as loaded.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The title from the header (0x134..), printable ASCII only.
    pub fn title(&self) -> String {
        self.bytes[0x134..0x144]
            .iter()
            .take_while(|&&b| b != 0)
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '?'
                }
            })
            .collect()
    }

    /// Mapper state right after power-on.
    pub fn power_on_mbc(&self) -> MbcState {
        MbcState::zeroed()
    }

    /// CPU read of 0x0000..=0x7FFF.
    #[inline]
    pub fn read(&self, _mbc: &MbcState, addr: u16) -> u8 {
        self.bytes.get(usize::from(addr)).copied().unwrap_or(0xFF)
    }

    /// CPU write to 0x0000..=0x7FFF (mapper registers). `now` is the machine's M-cycle count.
    #[inline]
    pub fn write(&self, _mbc: &mut MbcState, _addr: u16, _value: u8, _now: u64) {}

    /// CPU read of 0xA000..=0xBFFF.
    #[inline]
    pub fn read_ram(
        &self,
        _mbc: &MbcState,
        _ram: &[u8; CART_RAM_MAX],
        _addr: u16,
        _now: u64,
    ) -> u8 {
        0xFF
    }

    /// CPU write to 0xA000..=0xBFFF. Returns true when battery-backed data changed.
    #[inline]
    pub fn write_ram(
        &self,
        _mbc: &mut MbcState,
        _ram: &mut [u8; CART_RAM_MAX],
        _addr: u16,
        _value: u8,
        _now: u64,
    ) -> bool {
        false
    }
}
