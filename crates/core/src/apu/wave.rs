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
        wave.t_cycles_since_read &= !BACKGROUND_PULSED;
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
        wave.t_cycles_since_read |= BACKGROUND_PULSED;
    }

    /// An NR33 write in the APU cycle after a background reload (its read due in the next)
    /// reloads the countdown with the new frequency (SameBoy; UNVERIFIED, SameBoy's own note
    /// says no test ROM checks it).
    pub(super) fn write_nr33(&mut self) {
        if self.background_read_due() == 2 {
            self.wave.timer = wave_period(self.frequency(reg::NR33, reg::NR34));
        }
    }
}

/// In `WaveState::t_cycles_since_read`, above the count: the state of the wave channel's
/// reads in the background. A channel triggered (NR34 bit 7) counts on while its DAC is on
/// even when it is off (triggered with the DAC off, or stopped by its length counter), until
/// an NR30 write turns the DAC off; each time its countdown reloads it reads a byte into its
/// sample buffer, not at its position but at the address the CPU has on the bus, low 4 bits,
/// one APU cycle later (SameBoy's `pulsed` and `bugged_read_countdown`, up to the CGB-E;
/// UNVERIFIED, the documentation is silent). The next trigger plays that byte first.
/// Pinned by `probes/apu/wave_dac_on` and its neighbours.
///
/// The machine tells the APU the bus address only around those reads
/// (`ApuState::note_bus_address`): the low 4 bits of the last one it noted.
const BACKGROUND_BUS_SHIFT: u32 = 8;
const BACKGROUND_BUS: u32 = 0xF << BACKGROUND_BUS_SHIFT;
/// T-cycles (2 or 4) until a background read already under way lands. It lands even if a
/// trigger or an NR30 write comes first (the channel's countdown reloaded in the APU cycle
/// before, or is to reload in the next).
const BACKGROUND_READ_DUE_SHIFT: u32 = 12;
const BACKGROUND_READ_DUE: u32 = 7 << BACKGROUND_READ_DUE_SHIFT;
/// Triggered since the DAC was last turned off (SameBoy's `pulsed`).
const BACKGROUND_PULSED: u32 = 1 << 15;
/// The machine notes the bus address while a background read is at most this many T-cycles
/// away (3 M-cycles at single speed): the last access before the read is noted across an
/// instruction's idle M-cycles (at most two in a row, `add sp, e8`).
const BUS_WATCH_T_CYCLES: u32 = 12;

impl ApuState {
    /// Whether the wave channel counts in the background (triggered, DAC on, channel off).
    pub(super) fn wave_counts_in_background(&self) -> bool {
        self.wave.t_cycles_since_read & BACKGROUND_PULSED != 0
            && self.regs[reg::NR30] & 0x80 != 0
            && self.wave.active == 0
    }

    /// T-cycles until a background read under way lands (0: none).
    pub(super) fn background_read_due(&self) -> u32 {
        (self.wave.t_cycles_since_read & BACKGROUND_READ_DUE) >> BACKGROUND_READ_DUE_SHIFT
    }

    pub(super) fn set_background_read_due(&mut self, t_cycles: u32) {
        let since = self.wave.t_cycles_since_read & !BACKGROUND_READ_DUE;
        self.wave.t_cycles_since_read = since | (t_cycles << BACKGROUND_READ_DUE_SHIFT);
    }

    /// A background read lands: the sample buffer takes the byte at the bus address (and a
    /// playing channel plays it at once).
    pub(super) fn background_read(&mut self, synthesize: bool) {
        let bus = (self.wave.t_cycles_since_read & BACKGROUND_BUS) >> BACKGROUND_BUS_SHIFT;
        self.wave.sample_buffer = self.wave_ram[bus as usize];
        if self.wave.active != 0 {
            self.update_level(synthesize);
        }
    }

    /// The background countdown `t_cycles` on (no register changes meanwhile, so the bus
    /// address stands: only the last read counts). A reload at the very end leaves its read
    /// due in the next APU cycle.
    pub(super) fn run_background_wave(&mut self, t_cycles: u32, period: u32) {
        let timer = self.wave.timer.max(1);
        if t_cycles < timer {
            self.wave.timer = timer - t_cycles;
            return;
        }
        let after_first = t_cycles - timer;
        let after_last = after_first % period;
        self.wave.timer = period - after_last;
        if after_last == 0 {
            self.set_background_read_due(2);
            if after_first == 0 {
                return;
            }
        }
        // The last read that landed inside the run.
        self.background_read(false);
    }

    /// Before a trigger or an NR30 write: a background countdown that reloads in the next
    /// APU cycle still reads, one cycle after (SameBoy's `bugged_read_countdown` 2).
    pub(super) fn commit_background_read(&mut self) {
        if self.wave_counts_in_background() && self.wave.timer.max(1) <= 2 {
            self.set_background_read_due(4);
        }
    }

    /// T-cycles from now (the ticked time, not only the simulated one) to the first
    /// background read more than `beyond` T-cycles away, if the channel counts in the
    /// background or a read is due.
    fn t_cycles_to_background_read(&self, beyond: u32) -> Option<u32> {
        let unsimulated = self.pending_t_cycles();
        let due = match self.background_read_due() {
            due if due > unsimulated + beyond => Some(due - unsimulated),
            _ => None,
        };
        if !self.wave_counts_in_background() {
            return due;
        }
        let period = wave_period(self.frequency(reg::NR33, reg::NR34));
        let timer = self.wave.timer.max(1);
        let to_reload = if unsimulated < timer {
            timer - unsimulated
        } else {
            (period - (unsimulated - timer) % period) % period
        };
        let mut next = to_reload + 2;
        while next <= beyond {
            next += period;
        }
        Some(due.map_or(next, |due| due.min(next)))
    }

    /// Whether a background read landed in the time ticked but not yet simulated.
    fn background_read_passed(&self) -> bool {
        let unsimulated = self.pending_t_cycles();
        let due = self.background_read_due();
        (due != 0 && due <= unsimulated)
            || (self.wave_counts_in_background() && unsimulated >= self.wave.timer.max(1) + 2)
    }

    /// Whether the machine should bound its quiet windows by [`Self::bus_quiet_m_cycles`]
    /// and tell the APU its bus address ([`Self::note_bus_address`]).
    #[inline]
    pub fn watches_bus(&self) -> bool {
        let state = self.wave.t_cycles_since_read;
        state & BACKGROUND_READ_DUE != 0
            || (state & BACKGROUND_PULSED != 0
                && self.wave.active == 0
                && self.regs[reg::NR30] & 0x80 != 0)
    }

    /// Whether a length clock may turn the playing wave channel off into its background
    /// counting: the machine then ends its quiet windows at DIV-APU events, so that the
    /// window after the one that stops it watches the bus. (Not only when the length is
    /// about to run out: a quiet window with the LCD off may pass many events.)
    #[inline]
    pub fn wave_may_stop_counting(&self) -> bool {
        self.wave.t_cycles_since_read & BACKGROUND_PULSED != 0
            && self.wave.active != 0
            && self.regs[reg::NR34] & 0x40 != 0
    }

    /// CPU M-cycles (4 T-cycles, 2 at double speed) from now whose accesses the APU need not
    /// see: until a background read is `BUS_WATCH_T_CYCLES` away, not counting the reads
    /// of the next M-cycle (they take the address noted in this one).
    pub fn bus_quiet_m_cycles(&self, double_speed: bool) -> u32 {
        let t_cycles_per_m_cycle = if double_speed { 2 } else { 4 };
        match self.t_cycles_to_background_read(t_cycles_per_m_cycle) {
            Some(t_cycles) if t_cycles > BUS_WATCH_T_CYCLES => {
                (t_cycles - BUS_WATCH_T_CYCLES - 1) / t_cycles_per_m_cycle
            }
            Some(_) => 0,
            None => u32::MAX,
        }
    }

    /// The CPU puts `addr` on the bus in the M-cycle just ticked (after its tick): the reads
    /// before it took the address noted before (a read that has landed is simulated first);
    /// the next ones take this one, if a read is near (only then: what is noted must not
    /// depend on which M-cycles the machine ticked in full).
    #[cold]
    pub fn note_bus_address(&mut self, addr: u16, synthesize: bool) {
        let near = self
            .t_cycles_to_background_read(0)
            .is_some_and(|t_cycles| t_cycles <= BUS_WATCH_T_CYCLES);
        if !near {
            return;
        }
        if self.background_read_passed() {
            self.catch_up_to(self.apu_cycles_elapsed(), synthesize);
        }
        let since = self.wave.t_cycles_since_read & !BACKGROUND_BUS;
        self.wave.t_cycles_since_read = since | u32::from(addr & 0x0F) << BACKGROUND_BUS_SHIFT;
    }
}
