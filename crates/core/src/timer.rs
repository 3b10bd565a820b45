//! DIV, TIMA, TMA, TAC: the 16-bit system counter and the timer that counts its falling edges.
//!
//! TIMA counts falling edges of `enabled AND system_counter[bit]`, the bit chosen by TAC, so
//! writes to DIV (counter reset) or TAC can produce an extra increment (Mooneye
//! `timer/*_div_trigger`, `rapid_toggle`). An overflow leaves TIMA at 0 for one M-cycle; the
//! next M-cycle loads TMA and requests the interrupt (Mooneye `tima_reload`,
//! `tima_write_reloading`, `tma_write_reloading`).

use crate::io;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, StateFields)]
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
    /// A `ReloadPhase` (where TIMA is in its overflow sequence), stored raw.
    #[state(below = 3)]
    pub reload_phase: u8,
    /// 1: the counter resets at the end of the next M-cycle (a CGB speed switch taken with
    /// an interrupt pending holds DIV's reset one M-cycle, as its pause-less STOP ends).
    #[state(flag, since = 3)]
    pub div_reset_pending: u8,
    #[state(old_pad_len = 2)]
    pub _pad: [u8; 1],
}

/// Where TIMA is in its overflow sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ReloadPhase {
    None = 0,
    /// TIMA overflowed in this M-cycle and reads 0; a TIMA write now cancels the reload.
    Overflowed = 1,
    /// TIMA was loaded from TMA in this M-cycle; TIMA writes are ignored, TMA writes go
    /// through to TIMA as well.
    Reloading = 2,
}

impl TimerState {
    /// DIV as the DMG boot ROM leaves it at 0x0100 (Mooneye `boot_div-dmgABCmgb`).
    pub fn post_boot() -> TimerState {
        TimerState {
            system_counter: POST_BOOT_SYSTEM_COUNTER,
            tac: 0,
            ..TimerState::default()
        }
    }

    fn reload_phase(&self) -> ReloadPhase {
        match self.reload_phase {
            1 => ReloadPhase::Overflowed,
            2 => ReloadPhase::Reloading,
            _ => ReloadPhase::None,
        }
    }

    /// The system-counter bit mask whose falling edge clocks TIMA, or 0 when TAC disables it.
    #[inline(always)]
    pub fn tima_clock_mask(&self) -> u16 {
        if self.tac & 0b100 == 0 {
            0
        } else {
            TAC_CLOCK_BITS[usize::from(self.tac & 3)]
        }
    }

    /// One M-cycle, before the CPU's access. Returns the counter bits that fell, which also
    /// clock the serial port (bit 8) and the APU frame sequencer (bit 12).
    #[inline(always)]
    pub fn tick(&mut self, interrupt_flag: &mut u8) -> u16 {
        if self.reload_phase | self.div_reset_pending != 0 {
            return self.tick_with_pending_work(interrupt_flag);
        }
        self.count()
    }

    /// `tick` with a TIMA reload or a held DIV reset to finish.
    #[cold]
    fn tick_with_pending_work(&mut self, interrupt_flag: &mut u8) -> u16 {
        if self.reload_phase != 0 {
            self.finish_reload(interrupt_flag);
        }
        let mut fell = self.count();
        if self.div_reset_pending != 0 {
            self.div_reset_pending = 0;
            fell |= self.write(io::DIV, 0);
        }
        fell
    }

    /// The counter's 4 T-cycles of one M-cycle; returns the bits that fell.
    #[inline(always)]
    fn count(&mut self) -> u16 {
        let old = self.system_counter;
        let new = old.wrapping_add(4);
        self.system_counter = new;
        // Every clock anyone watches is bit 3 or above: no edge unless bits 0-3 wrapped.
        if new & 0xF != 0 {
            return 0;
        }
        let fell = old & !new;
        if fell & self.tima_clock_mask() != 0 {
            self.increment_tima();
        }
        fell
    }

    #[cold]
    fn finish_reload(&mut self, interrupt_flag: &mut u8) {
        match self.reload_phase() {
            ReloadPhase::Overflowed => {
                self.tima = self.tma;
                *interrupt_flag |= io::INT_TIMER;
                self.reload_phase = ReloadPhase::Reloading as u8;
            }
            _ => self.reload_phase = ReloadPhase::None as u8,
        }
    }

    fn increment_tima(&mut self) {
        let (value, overflow) = self.tima.overflowing_add(1);
        self.tima = value;
        if overflow {
            self.reload_phase = ReloadPhase::Overflowed as u8;
        }
    }

    pub fn read(&self, reg: u8) -> u8 {
        match reg {
            io::DIV => (self.system_counter >> 8) as u8,
            io::TIMA => self.tima,
            io::TMA => self.tma,
            _ => self.tac | 0xF8,
        }
    }

    /// A CPU write, after this M-cycle's tick. Returns the counter bits that fell (a DIV
    /// write resets the counter, which can clock TIMA, serial and the APU).
    pub fn write(&mut self, reg: u8, value: u8) -> u16 {
        match reg {
            io::DIV => {
                let fell = self.system_counter;
                if fell & self.tima_clock_mask() != 0 {
                    self.increment_tima();
                }
                self.system_counter = 0;
                return fell;
            }
            io::TIMA => match self.reload_phase() {
                ReloadPhase::Reloading => {}
                ReloadPhase::Overflowed => {
                    self.tima = value;
                    self.reload_phase = ReloadPhase::None as u8;
                }
                ReloadPhase::None => self.tima = value,
            },
            io::TMA => {
                self.tma = value;
                if self.reload_phase() == ReloadPhase::Reloading {
                    self.tima = value;
                }
            }
            _ => {
                // DMG: the clock input is an AND of enable and the selected bit, so turning it
                // off (or switching to a low bit) while the input is high is a falling edge.
                let was_high = self.system_counter & self.tima_clock_mask() != 0;
                self.tac = value & 7;
                let is_high = self.system_counter & self.tima_clock_mask() != 0;
                if was_high && !is_high {
                    self.increment_tima();
                }
            }
        }
        0
    }

    /// The counter reset of a CGB speed switch that pauses the CPU (CPU CGB E): a DIV
    /// write, plus an increment of the 262 KHz clock when its bit (3) rises in the next
    /// M-cycle. Returns the counter bits that fell.
    ///
    /// APPROX, after AGE's emulator (`gb_timer::after_div_reset`, its "speed change
    /// glitch"): AGE resets one M-cycle after our instant (ours is pinned by AGE
    /// `spsw-div-cgbBCE` and the TIMA edges after the switch, the wake by
    /// `spsw-mode0-cgbBCE`), and on revision E a selected bit that rose in that very
    /// M-cycle does not count as high, except at 262 KHz. Judged one M-cycle on, a bit
    /// high now falls either by counting or by the reset (one increment, as a DIV write
    /// gives now), and only the 262 KHz bit rising then adds one. AGE `spsw-tima-cgbE`:
    /// without it the 262 KHz rows miss their immediate increment, while no single reset
    /// instant fits the 262 and 65 KHz rows.
    pub fn reset_at_speed_switch(&mut self) -> u16 {
        if self.tima_clock_mask() == TAC_CLOCK_BITS[1] && self.system_counter & 0xF == 4 {
            self.increment_tima();
        }
        self.write(io::DIV, 0)
    }

    /// M-cycles from now on which nothing observable can happen: no TIMA overflow and no
    /// falling edge of any bit in `watched` (e.g. the serial and APU clocks). At least 0.
    pub fn quiet_m_cycles(&self, watched: u16) -> u32 {
        if self.reload_phase | self.div_reset_pending != 0 {
            return 0;
        }
        let counter = u32::from(self.system_counter);
        let mut quiet = u32::MAX;
        let mask = self.tima_clock_mask();
        if mask != 0 {
            let edges_to_overflow = 256 - u32::from(self.tima);
            quiet = m_cycles_before_nth_fall(counter, mask, edges_to_overflow);
        }
        let mut bits = watched;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            bits &= !bit;
            quiet = quiet.min(m_cycles_before_nth_fall(counter, bit, 1));
        }
        quiet
    }

    /// Exactly `n` ticks, when `n <= quiet_m_cycles(..)` (no overflow, no watched edge).
    pub fn advance(&mut self, n: u32) {
        let counter = u32::from(self.system_counter);
        let mask = u32::from(self.tima_clock_mask());
        let end = counter + 4 * n;
        if mask != 0 {
            // The period (twice the bit) is a power of two.
            let shift = mask.trailing_zeros() + 1;
            let edges = (end >> shift) - (counter >> shift);
            self.tima = self.tima.wrapping_add(edges as u8);
        }
        self.system_counter = end as u16;
    }
}

/// TAC clock select → the system-counter bit whose falling edge clocks TIMA.
const TAC_CLOCK_BITS: [u16; 4] = [1 << 9, 1 << 3, 1 << 5, 1 << 7];

/// The counter at 0x0100 after the DMG boot ROM. DIV reads 0xAB (Pan Docs); the low byte
/// sets the phase that Mooneye `boot_div-dmgABCmgb` checks.
const POST_BOOT_SYSTEM_COUNTER: u16 = 0xABC8;
/// The counter at 0x0100 after the CGB boot ROM (CPU revisions A-E). The boot ROM takes a
/// different path for each mode: a DMG cartridge (compatibility mode) gets its palettes
/// chosen and written, which a CGB cartridge skips.
/// Compatibility mode: Mooneye `boot_div-cgbABCDE` (hardware-verified).
/// CGB mode: DIV 0x1E, the value Gambatte's hardware-derived initial state gives at 0x0100,
/// one M-cycle earlier in the low byte as for the DMG value (our fetch is not overlapped);
/// ashiepaws `bully` (GBC) reads the DIV value this implies after its framework start-up.
pub(crate) fn cgb_post_boot_system_counter(cgb_cartridge: bool) -> u16 {
    if cgb_cartridge { 0x1E9C } else { 0x2674 }
}

/// M-cycles that can pass before the M-cycle containing the `n`-th falling edge (n >= 1) of
/// `bit` in a counter that advances 4 per M-cycle.
fn m_cycles_before_nth_fall(counter: u32, bit: u16, n: u32) -> u32 {
    let period = u32::from(bit) << 1;
    // The period is a power of two: round down to a multiple and add one.
    let next_fall = (counter & !(period - 1)) + period;
    let target = next_fall + (n - 1) * period;
    // The tick that takes the counter from below `target` to `target` or above is the event.
    let ticks_to_event = (target - counter).div_ceil(4);
    ticks_to_event - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eager(timer: &mut TimerState, n: u32) {
        let mut flag = 0;
        for _ in 0..n {
            timer.tick(&mut flag);
        }
        assert_eq!(flag, 0);
    }

    #[test]
    fn advance_matches_ticks_inside_the_quiet_window() {
        for tac in [0u8, 4, 5, 6, 7] {
            for start in [0u16, 3, 0x1FC, 0xABCC, 0xFFFC] {
                for tima in [0u8, 0x80, 0xFE, 0xFF] {
                    let timer = TimerState {
                        system_counter: start & !3,
                        tima,
                        tac,
                        ..TimerState::default()
                    };
                    let quiet = timer.quiet_m_cycles(1 << 8 | 1 << 12);
                    let n = quiet.min(5000);
                    let (mut a, mut b) = (timer, timer);
                    eager(&mut a, n);
                    b.advance(n);
                    assert_eq!(a, b, "tac {tac} start {start:#x} tima {tima:#x} n {n}");
                    // The next tick really is an event (an overflow or a watched edge).
                    if quiet < 5000 {
                        let mut flag = 0;
                        let fell = a.tick(&mut flag);
                        assert!(
                            a.reload_phase != 0 || fell & (1 << 8 | 1 << 12) != 0,
                            "tac {tac} start {start:#x} tima {tima:#x}"
                        );
                    }
                }
            }
        }
    }
}
