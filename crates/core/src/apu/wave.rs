//! The wave channel's trigger and stop, and what they leave in its sample buffer.

use super::*;

/// In `WaveState::position` (above the sample index): the sample buffer is to take the wave
/// RAM byte at the CPU's PC (low 4 bits) as it was at an NR30 write, which the next opcode
/// fetch reports (`ApuState::take_pc`).
const WAVE_BUFFER_FROM_PC: u8 = 0x80;

impl ApuState {
    /// Turning the wave DAC off (NR30 bit 7 clear) stops the channel. If it was about to
    /// read wave RAM in the next 2 MHz cycle, its sample buffer takes the byte at the CPU's
    /// PC instead (SameBoy up to the CGB-E; UNVERIFIED, SameBoy's own guess for the DMG).
    /// Pinned by `probes/apu/wave_stop_startup`.
    pub(super) fn stop_wave(&mut self) {
        let wave = &mut self.wave;
        if wave.active != 0 && wave.timer.max(1) <= WAVE_CORRUPTION_WINDOW_T_CYCLES {
            wave.position |= WAVE_BUFFER_FROM_PC;
        }
        wave.active = 0;
    }

    /// Whether the APU waits for the CPU's PC at the write just made ([`Self::take_pc`]).
    #[inline]
    pub fn wants_pc(&self) -> bool {
        self.wave.position & WAVE_BUFFER_FROM_PC != 0
    }

    /// The CPU's PC at the last write (the address of the next opcode, as the write was
    /// its instruction's last M-cycle), when [`Self::wants_pc`] asks for it.
    #[cold]
    pub fn take_pc(&mut self, pc: u16) {
        self.wave.position &= !WAVE_BUFFER_FROM_PC;
        self.wave.sample_buffer = self.wave_ram[usize::from(pc & 0x0F)];
    }

    pub(super) fn trigger_wave(&mut self) {
        let wave = &mut self.wave;
        // The channel reads wave RAM in the next 2 MHz cycle (SameBoy's `sample_countdown`
        // at 0).
        let about_to_read =
            wave.active != 0 && wave.timer.max(1) <= WAVE_CORRUPTION_WINDOW_T_CYCLES;
        if about_to_read && self.cgb == 0 {
            // DMG: the channel was about to read the byte after its position; the retrigger
            // copies that byte (or its 4-byte row) over the start of wave RAM (Pan Docs,
            // Blargg `10-wave_trigger_while_on`).
            let next = usize::from(((wave.position + 1) & 31) >> 1);
            if next < 4 {
                self.wave_ram[0] = self.wave_ram[next];
            } else {
                let row = next & !3;
                self.wave_ram.copy_within(row..row + 4, 0);
            }
        }
        let period = wave_period(self.frequency(reg::NR33, reg::NR34));
        let wave = &mut self.wave;
        if about_to_read {
            // The read it was about to make still happens, from the start of wave RAM, on
            // every model (SameBoy; UNVERIFIED on the CGB, where Pan Docs is silent). Pinned
            // by `probes/apu/wave_retrigger_ds`.
            wave.sample_buffer = self.wave_ram[0];
        }
        wave.position = 0;
        wave.timer = period + WAVE_TRIGGER_DELAY_T_CYCLES;
        // The sample buffer keeps its old byte: the first nibble played is a stale one (Pan Docs).
        wave.active = u8::from(self.regs[reg::NR30] & 0x80 != 0);
    }
}
