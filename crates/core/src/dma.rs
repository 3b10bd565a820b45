//! OAM DMA: 160 bytes copied one per M-cycle, with the CPU locked out of the bus it uses.
//!
//! A write to FF46 starts copying two M-cycles later; a transfer already running goes on
//! until then (Mooneye `oam_dma_start`, `oam_dma_restart`, `oam_dma_timing`).

use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct DmaState {
    /// FF46 DMA as last written.
    pub source_high: u8,
    /// 1 while a transfer owns OAM (from its first copy until the M-cycle after its last).
    #[state(flag)]
    pub active: u8,
    /// Next byte to copy, 0..=160 (160 = finished, releasing OAM at the next M-cycle).
    #[state(below = 161)]
    pub index: u8,
    /// M-cycles until a requested transfer starts copying (0 = none requested).
    pub start_delay: u8,
    /// The high byte of the source of the transfer that is copying.
    pub active_source_high: u8,
    /// The byte most recently copied (what a conflicting CPU read sees).
    pub last_byte: u8,
    pub _pad: [u8; 2],
}

/// M-cycles from the FF46 write to the first copy.
const START_DELAY: u8 = 2;

/// Which bus an address is on, for DMA conflicts.
#[derive(PartialEq, Eq)]
enum BusId {
    /// The cartridge (ROM, cartridge RAM), and on a DMG work RAM too.
    External,
    /// Work RAM on a CGB, which has its own bus (Pan Docs "OAM DMA bus conflicts"; ashiepaws
    /// `bully` on CGB: POP and PUSH reach work RAM during a DMA from ROM).
    WorkRam,
    Video,
    Internal,
}

fn bus_of(addr: u16, cgb: bool) -> BusId {
    match addr {
        0x8000..=0x9FFF => BusId::Video,
        0xC000..=0xFDFF if cgb => BusId::WorkRam,
        0xFE00..=0xFFFF => BusId::Internal,
        _ => BusId::External,
    }
}

impl DmaState {
    pub fn post_boot() -> DmaState {
        DmaState {
            source_high: 0xFF,
            ..DmaState::default()
        }
    }

    pub fn request(&mut self, source_high: u8) {
        self.source_high = source_high;
        self.start_delay = START_DELAY;
    }

    /// Whether this M-cycle has DMA work to do.
    #[inline(always)]
    pub fn is_busy(&self) -> bool {
        self.active | self.start_delay != 0
    }

    /// Advances the start countdown; returns the source address to copy into OAM at
    /// `index` this M-cycle, if any.
    pub fn step(&mut self) -> Option<(u16, usize)> {
        if self.start_delay != 0 {
            self.start_delay -= 1;
            if self.start_delay == 0 {
                self.active = 1;
                self.index = 0;
                self.active_source_high = self.source_high;
            }
        }
        if self.active == 0 {
            return None;
        }
        if self.index >= 160 {
            self.active = 0;
            return None;
        }
        let index = self.index;
        self.index += 1;
        let addr = u16::from(self.active_source_high) << 8 | u16::from(index);
        Some((addr, usize::from(index)))
    }

    /// The M-cycles from the next one on that only copy a byte each: no start countdown
    /// runs and OAM is not released in them, so `active`, the source and the bus the
    /// transfer holds stay as they are, and only `index`, `last_byte` and OAM change.
    /// The machine may defer those M-cycles (`Machine::advance_dma`). 0 for a transfer
    /// from cartridge RAM, whose reads may depend on the M-cycle (a clock chip).
    pub fn copying_m_cycles(&self) -> u32 {
        if self.start_delay != 0 || self.active == 0 {
            return 0;
        }
        if matches!(self.active_source_high, 0xA0..=0xBF) {
            return 0;
        }
        160u32.saturating_sub(u32::from(self.index))
    }

    /// Runs `n` of the `copying_m_cycles`: returns the source address and OAM index of
    /// the first byte they copy (the caller copies the `n` bytes from there on).
    pub fn skip_copies(&mut self, n: u32) -> (u16, usize) {
        debug_assert!(n <= self.copying_m_cycles());
        let index = self.index;
        self.index += n as u8;
        let addr = u16::from(self.active_source_high) << 8 | u16::from(index);
        (addr, usize::from(index))
    }

    /// Whether a CPU access to `addr` collides with the running transfer: OAM is the DMA's,
    /// and so is the bus it reads from. HRAM and I/O stay reachable. `cgb`: the hardware is
    /// a CGB (in either mode), whose work RAM is on a bus of its own.
    #[inline(always)]
    pub fn blocks(&self, addr: u16, cgb: bool) -> bool {
        if self.active == 0 || addr >= 0xFF00 {
            return false;
        }
        if (0xFE00..0xFF00).contains(&addr) {
            return true;
        }
        bus_of(addr, cgb) == self.source_bus(cgb)
    }

    /// Sources from 0xE000 up read work RAM (on a DMG that is on the external bus).
    fn source_bus(&self, cgb: bool) -> BusId {
        match self.active_source_high {
            0x80..=0x9F => BusId::Video,
            0xC0.. if cgb => BusId::WorkRam,
            _ => BusId::External,
        }
    }
}
