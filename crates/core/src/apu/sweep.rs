//! Square 1's frequency sweep: its trigger, its clock (frame sequencer steps 2 and 6) and
//! the calculation that completes a few cycles after either.
//!
//! A calculation's overflow check (and the "negate was used" mark that NR10 writes look at)
//! completes `SWEEP_CHECK_SHIFT`'s countdown later, not when it starts; until a trigger's
//! calculation completes, the sweep's shadow frequency is 0 (SameBoy's model of the CGB-E;
//! UNVERIFIED, Pan Docs describes the calculations as instant).

use super::*;

/// 1 MHz cycles from a trigger to the end of its sweep calculation, beyond the shift: one
/// more if the channel was off. Pinned by `probes/apu/sweep_negate_clear`,
/// `sweep_negate_restart` and `sweep_negate_clear_ds`.
const SWEEP_TRIGGER_DELAY: u8 = 2;

impl ApuState {
    pub(super) fn trigger_square1(&mut self) {
        let frequency = self.frequency(reg::NR13, reg::NR14);
        let was_on = self.square1.active != 0;
        let lf_div = self.lf_div();
        trigger_square(
            &mut self.square1,
            self.regs[reg::NR12],
            self.regs[reg::NR14],
            square_period(frequency),
            lf_div,
            self.cgb != 0,
        );
        let nr10 = self.regs[reg::NR10];
        let (period, shift) = ((nr10 >> 4) & 7, nr10 & 7);
        // The shadow is loaded when the trigger's calculation completes; a sweep clock
        // before that adds the shifted frequency to 0 (`clock_sweep`).
        self.sweep_shadow = 0;
        self.sweep_timer = if period == 0 { 8 } else { period };
        self.sweep_enabled = u8::from(period != 0 || shift != 0);
        self.sweep_negated = 0;
        // With a non-zero shift, the trigger makes an overflow check, without writing back
        // (Blargg `06-overflow_on_trigger`); a pending one from before is dropped.
        // Counted in 1 MHz ticks, which fall on the APU cycles that end `lf_div` = 1: the
        // first comes one APU cycle on when it is 1 (only double speed sees the odd cycle).
        let delay = if shift == 0 {
            0
        } else {
            (SWEEP_TRIGGER_DELAY + u8::from(!was_on) + shift) * 2 - lf_div as u8
        };
        self.set_sweep_check_apu_cycles(delay);
    }

    /// The sweep's next frequency; silences square 1 if it overflows 2047.
    pub(super) fn sweep_calculate(&mut self) -> u16 {
        let nr10 = self.regs[reg::NR10];
        let delta = self.sweep_shadow >> (nr10 & 7);
        let next = if nr10 & 0x08 != 0 {
            self.sweep_negated = 1;
            self.sweep_shadow.wrapping_sub(delta)
        } else {
            self.sweep_shadow.saturating_add(delta) // (a hand-made shadow may be huge)
        };
        if next > 2047 {
            self.square1.active = 0;
        }
        next
    }

    /// The pending sweep calculation completes: the shadow takes the channel's frequency
    /// (as a trigger or sweep clock left it, or the CPU rewrote it since) and the overflow
    /// check runs on it.
    pub(super) fn finish_sweep_check(&mut self) {
        self.set_sweep_check_apu_cycles(0);
        self.sweep_shadow = self.frequency(reg::NR13, reg::NR14);
        self.sweep_calculate();
    }

    /// APU cycles until a sweep calculation completes (0: none pending).
    pub(super) fn sweep_check_apu_cycles(&self) -> u8 {
        self.frame_step >> SWEEP_CHECK_SHIFT
    }

    pub(super) fn set_sweep_check_apu_cycles(&mut self, apu_cycles: u8) {
        self.frame_step = (self.frame_step & 7) | (apu_cycles << SWEEP_CHECK_SHIFT);
    }

    /// Frame sequencer steps 2 and 6 (128 Hz).
    pub(super) fn clock_sweep(&mut self) {
        self.sweep_timer = self.sweep_timer.saturating_sub(1);
        if self.sweep_timer != 0 {
            return;
        }
        let nr10 = self.regs[reg::NR10];
        let (period, shift) = ((nr10 >> 4) & 7, nr10 & 7);
        self.sweep_timer = if period == 0 { 8 } else { period };
        if self.sweep_enabled == 0 || period == 0 {
            return;
        }
        // The calculation (with its overflow check) completes `shift` + 1 + `lf_div` 1 MHz
        // cycles after the clock (`finish_sweep_check`; SameBoy, UNVERIFIED; at double
        // speed SameBoy also aligns the count to the 1 MHz phase, not emulated). Pinned by
        // `probes/apu/sweep_clock`, `sweep_shift3` and `sweep_shift0_negate`.
        let check_apu_cycles = (shift + 1 + self.lf_div() as u8) * 2;
        if shift == 0 {
            // No write-back.
            self.set_sweep_check_apu_cycles(check_apu_cycles);
            return;
        }
        let next = if self.sweep_check_apu_cycles() != 0 {
            // A trigger's calculation is still pending: its shadow is 0, so the write-back
            // is the shifted frequency alone (plus the negation's carry), unchecked
            // (SameBoy; UNVERIFIED). Pinned by `probes/apu/sweep_restart`.
            let frequency = self.frequency(reg::NR13, reg::NR14);
            ((frequency >> shift) + u16::from(nr10 >> 3 & 1)) & 0x7FF
        } else {
            self.sweep_calculate()
        };
        if next <= 2047 {
            self.sweep_shadow = next;
            self.regs[reg::NR13] = next as u8;
            self.regs[reg::NR14] = self.regs[reg::NR14] & !7 | (next >> 8) as u8;
            // A second calculation with the new value, for its overflow check only.
            self.set_sweep_check_apu_cycles(check_apu_cycles);
        }
    }
}
