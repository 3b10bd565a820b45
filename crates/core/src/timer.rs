//! DIV, TIMA, TMA, TAC: the 16-bit system counter and the timer that counts its falling edges.
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct TimerState {
    /// The 16-bit system counter in T-cycles; FF04 DIV is its high byte.
    pub system_counter: u16,
    /// FF05 TIMA.
    pub tima: u8,
    /// FF06 TMA.
    pub tma: u8,
    /// FF07 TAC (low three bits).
    pub tac: u8,
    /// A `ReloadPhase`, stored raw.
    pub reload_phase: u8,
    pub _pad: [u8; 2],
}
