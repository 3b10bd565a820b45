//! The DMG APU: two square channels (the first with a frequency sweep), a wave channel and a
//! noise channel, the frame sequencer that clocks their length counters, envelopes and sweep,
//! and the mixer, feeding band-limited 48 kHz stereo synthesis (`blip`).
//!
//! # Lazy by design
//! `tick` runs a million times per emulated second, so it only counts: the channels are
//! brought up to the present (`catch_up`) when something could observe or change them — a
//! register write, a DIV-APU event, every `FLUSH_M_CYCLES` to hand finished samples to the
//! host. Reads take `&self` and so never catch up; the only read that depends on the
//! channels' timers (wave RAM while the wave channel plays) projects the wave channel forward
//! on a copy. Catching up in one piece or in many gives the same state and the same samples
//! (tested in `tests/apu_unit.rs` against a state that catches up after every M-cycle).
//! So an event or write that changes nothing a catch-up reads or writes skips it
//! (`event_is_quiet`, `write_is_quiet`); the machine catches up to the last one skipped
//! before it hands the state back ([`ApuState::settle_skipped_catch_ups`]). On a DMG the
//! flush itself may wait for the next catch-up, which then works the owed periods back to
//! back (`owed_flush.rs`).
//!
//! Channel timers count T-cycles; each event (a duty step, a wave sample read, an LFSR shift)
//! is processed at its exact T-cycle, and every mixer change goes to the synthesizer stamped
//! with that T-cycle. Within a catch-up no register changes, so channels nobody can hear are
//! moved on in closed form and the mixer is updated incrementally; `run_reference`, the
//! plain loop, is the oracle for those shortcuts (`tests.rs`).
//!
//! Time order inside an M-cycle: `tick` first, then the CPU's access (a register access sees
//! the APU as it is at the end of the M-cycle's four T-cycles).
//!
//! # Output
//! Each channel's DAC maps its digital 0..=15 onto ±15 units (0 when the DAC is off); NR51
//! routes, NR50 scales (1..=8), `LEVEL_PER_DAC_STEP` sets the i16 scale. `blip` turns level
//! changes into 48 kHz stereo with an 8-sample (167 µs) delay and a DMG-like output
//! capacitor (high-pass), all in integers inside the state. `tick` hands finished samples to
//! [`AudioOut`], which the host drains; nothing there is read back.
//!
//! # Silent running
//! A host that plays no sound (a bot, a benchmark) switches synthesis off
//! ([`FastPaths::audio_synthesis`](crate::FastPaths::audio_synthesis)): every channel then
//! runs in closed form as if nobody could hear it, and the synthesizer (`ApuState::synth`)
//! is left as it was. Everything the CPU can observe (lengths, envelopes, sweep, NR52, wave
//! RAM access, PCM12/PCM34) and every other byte of the state is as with synthesis on
//! (`tests.rs` checks it on sound-heavy ROMs against the plain paths,
//! `crates/harness/tests/render_oracle.rs` on every homebrew ROM).
//!
//! Behaviour follows Pan Docs ("Audio", "Audio Registers", "Audio details") and is checked by
//! Blargg's `dmg_sound` ROMs; details only one emulator documents cite it.

mod audio_out;
mod blip;
mod channels;
mod kernel;
mod lfsr_jump;
mod noise_clock;
mod owed_flush;
mod registers;
mod sequencer;
mod square;
mod sweep;
#[cfg(test)]
mod tests;
mod wave;

pub use audio_out::AudioOut;
use channels::*;
use noise_clock::NoiseClock;
use sequencer::*;
use square::*;

use crate::state_fields::StateFields;
pub use blip::SynthState;
use bytemuck::{Pod, Zeroable};

/// Output sample rate of [`AudioOut`], in stereo frames per second.
pub const SAMPLE_RATE: u32 = 48_000;

/// The channels are caught up and finished samples handed to the host at least this often
/// (and at every frame end): about 94 samples, inside the synthesizer's 128-sample ring.
/// A shorter period costs more in per-flush setup.
const FLUSH_M_CYCLES: u32 = 1 << (32 - FLUSH_CLOCK_SHIFT);
/// `ApuState::flush_clock` counts M-cycles in its bits from here up.
const FLUSH_CLOCK_SHIFT: u32 = 21;
/// In `ApuState::flush_clock`: one 2 MHz APU cycle (half an M-cycle) beyond the M-cycles
/// counted above it. At CGB double speed a CPU M-cycle is one APU cycle, so this bit flips
/// on every tick; at single speed ticks add whole M-cycles and leave it as it is.
const ELAPSED_HALF: u32 = 1 << (FLUSH_CLOCK_SHIFT - 1);
/// In `ApuState::flush_clock`: the channels have been simulated one APU cycle beyond
/// `ApuState::m_cycles_simulated`.
const SIMULATED_HALF: u32 = 1 << (FLUSH_CLOCK_SHIFT - 2);
/// In `ApuState::flush_clock`: `ELAPSED_HALF` as it was when the APU was powered on. The APU's
/// 1 MHz phase (SameBoy's `lf_div`) is 1 at power-on and flips with every odd APU cycle, so
/// it is 1 while the two bits agree.
const POWER_ON_HALF: u32 = 1 << (FLUSH_CLOCK_SHIFT - 3);
/// In `ApuState::flush_clock`: the APU was powered on while the DIV bit that makes DIV-APU
/// events (bit 4, bit 5 at double speed) was set, and the first event is still to come: it
/// does nothing (SameBoy's `skip_div_event`; UNVERIFIED, the documentation is silent).
/// Meanwhile the frame sequencer stands after step 0 (`frame_step` 1), as SameBoy's
/// `div_divider` 1. Pinned by `probes/apu/power_on_div`.
const SKIP_DIV_APU_EVENT: u32 = 1 << (FLUSH_CLOCK_SHIFT - 4);
/// In `ApuState::flush_clock`: that first event has been skipped; the next one performs step
/// 0 (and leaves the sequencer after it, as it stood).
const SKIPPED_DIV_APU_EVENT: u32 = 1 << (FLUSH_CLOCK_SHIFT - 5);
/// In `ApuState::flush_clock`, bits 0-15: a DIV-APU event or register write that changed
/// nothing the channels run on left them where they were (`skip_catch_up`); this is 1 +
/// the APU cycles after the last flush at which the last of them came, 0 if none came since
/// the last catch-up. Before the machine hands the state back, the channels catch up to
/// there ([`ApuState::settle_skipped_catch_ups`]), so a run ends with the state that
/// catching up at every event and write gives.
const SKIPPED_CATCH_UP_BITS: u32 = (1 << 16) - 1;
const _: () = assert!(2 * FLUSH_M_CYCLES + 2 <= SKIPPED_CATCH_UP_BITS);
const _: () = assert!(SKIPPED_CATCH_UP_BITS < SKIPPED_DIV_APU_EVENT);
/// The bits of `ApuState::flush_clock` below the M-cycle count that a flush keeps.
const FLUSH_CLOCK_PHASE_BITS: u32 =
    ELAPSED_HALF | SIMULATED_HALF | POWER_ON_HALF | SKIP_DIV_APU_EVENT | SKIPPED_DIV_APU_EVENT;
// A flush period of samples plus the kernel's spread fits the ring (48 kHz / 1,048,576 Hz).
const _: () =
    assert!((FLUSH_M_CYCLES as usize * 48_000).div_ceil(1 << 20) + kernel::TAPS < blip::RING);
/// A catch-up advances in pieces of at most this many T-cycles (one flush period), so the
/// synthesizer's clock stays inside its ring even for a state that was not ticked for a long
/// time.
const CATCH_UP_PIECE_T_CYCLES: u32 = 8192;
/// The mixer's scale: one DAC step (of ±15) at master volume 1 is this much of an i16 sample.
/// Four channels at full swing and master volume 8 reach 15 × 4 × 8 × 40 = 19,200, which
/// leaves headroom for the high-pass filter's overshoot when a loud square flips (a scale
/// of 64 clipped busy music).
const LEVEL_PER_DAC_STEP: i32 = 40;
/// The wave channel lets the CPU at wave RAM while playing only if it read a sample within
/// this many T-cycles before the access: in the last 2 MHz APU cycle of the M-cycle (SameBoy's
/// `wave_form_just_read`). Pinned by Blargg `09-wave_read_while_on` and
/// `12-wave_write_while_on`: 1 and 2 pass (reads land on even T-cycles), 3 and more fail.
const WAVE_ACCESS_WINDOW_T_CYCLES: u32 = 1;
/// `WaveState::t_cycles_since_read` stops counting here: only "within the access window"
/// matters, and a value that stops changing costs rewind nothing while the channel is off
/// or between its reads.
const SINCE_READ_CAP_T_CYCLES: u32 = 255;
const _: () = assert!(SINCE_READ_CAP_T_CYCLES > WAVE_ACCESS_WINDOW_T_CYCLES);

/// The bits of `WaveState::t_cycles_since_read` that count; those above hold the channel's
/// background reads (`wave::BACKGROUND_PULSED` and the bits beside it).
const SINCE_READ_BITS: u32 = 0xFF;
const _: () = assert!(SINCE_READ_CAP_T_CYCLES <= SINCE_READ_BITS);

/// The wave channel's "T-cycles since it read wave RAM", `t_cycles` later (the bits above the
/// count kept).
#[inline]
fn since_read_after(since_read: u32, t_cycles: u32) -> u32 {
    let count = (since_read & SINCE_READ_BITS)
        .saturating_add(t_cycles)
        .min(SINCE_READ_CAP_T_CYCLES);
    since_read & !SINCE_READ_BITS | count
}

/// Triggering the wave channel delays its first sample read by this many T-cycles (three
/// 2 MHz APU cycles, as SameBoy has it). Pinned by Blargg 09, 10 and 12: 4 and 8 fail.
const WAVE_TRIGGER_DELAY_T_CYCLES: u32 = 6;
/// On DMG, retriggering the wave channel when it is about to read a sample (within this many
/// T-cycles) corrupts the first bytes of wave RAM (Pan Docs "Obscure behavior"). Pinned by
/// Blargg `10-wave_trigger_while_on`: 1 and 4 fail.
const WAVE_CORRUPTION_WINDOW_T_CYCLES: u32 = 2;

/// Register indexes into `ApuState::regs` (address low byte - 0x10).
mod reg {
    pub const NR10: usize = 0x00;
    pub const NR11: usize = 0x01;
    pub const NR12: usize = 0x02;
    pub const NR13: usize = 0x03;
    pub const NR14: usize = 0x04;
    pub const NR21: usize = 0x06;
    pub const NR22: usize = 0x07;
    pub const NR23: usize = 0x08;
    pub const NR24: usize = 0x09;
    pub const NR30: usize = 0x0A;
    pub const NR31: usize = 0x0B;
    pub const NR32: usize = 0x0C;
    pub const NR33: usize = 0x0D;
    pub const NR34: usize = 0x0E;
    pub const NR41: usize = 0x10;
    pub const NR42: usize = 0x11;
    pub const NR43: usize = 0x12;
    pub const NR44: usize = 0x13;
    pub const NR50: usize = 0x14;
    pub const NR51: usize = 0x15;
    pub const NR52: usize = 0x16;
}

/// Bits that read back as 1 whatever was written, FF10..=FF2F (Pan Docs register table;
/// Blargg `01-registers`). NR52's channel bits are filled in separately.
const READ_MASK: [u8; 0x20] = [
    0x80, 0x3F, 0x00, 0xFF, 0xBF, // NR10-NR14
    0xFF, 0x3F, 0x00, 0xFF, 0xBF, // unused, NR21-NR24
    0x7F, 0xFF, 0x9F, 0xFF, 0xBF, // NR30-NR34
    0xFF, 0xFF, 0x00, 0x00, 0xBF, // unused, NR41-NR44
    0x00, 0x00, 0x70, // NR50-NR52
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // FF27-FF2F
];

/// In a square's `ToneState::position`: the channel outputs 0 until its next duty step.
/// Set by a trigger that turns the channel on (SameBoy's `sample_surpressed`; UNVERIFIED,
/// the documentation is silent); any duty step clears it, as it carries out of bits 0-2.
pub(crate) const SQUARE_SILENT_UNTIL_STEP: u8 = 0x08;

/// In a square's `ToneState::position`: the output level (0 or 1) is held in bit 5 rather
/// than read from the duty pattern, until the next duty step or volume change. A square's
/// output is latched when it changes (at a duty step, a volume change or a trigger): an NRx1
/// write changes the pattern but not the level already out (SameBoy; UNVERIFIED, the
/// documentation is silent). Pinned by `probes/apu/sq2_duty_change`.
pub(crate) const SQUARE_DUTY_HELD: u8 = 0x10;
/// In a square's `ToneState::position`: no duty step since the last trigger (SameBoy's
/// `did_tick` clear); the first step clears it, as it carries out of bits 0-2.
pub(crate) const SQUARE_NOT_STEPPED: u8 = 0x40;

/// The held level's bit in `ToneState::position` (with `SQUARE_DUTY_HELD`).
const SQUARE_HELD_LEVEL_SHIFT: u8 = 5;

/// In `ApuState::frame_step`: the pending sweep overflow check's countdown (APU cycles)
/// starts at this bit.
const SWEEP_CHECK_SHIFT: u8 = 3;

/// T-cycles a square's trigger adds to its first duty step, beyond one period: a channel that
/// was off starts 8 late, a running one 4, 2 more in the APU's other 1 MHz phase (SameBoy's
/// CGB-E `delay` and `lf_div`; UNVERIFIED, Pan Docs only says the first step is delayed).
/// Pinned by `probes/apu/sq1_trigger`, `sq1_retrigger` and `sq1_trigger_ds`.
const SQUARE_START_DELAY_T_CYCLES: u32 = 8;
const SQUARE_RESTART_DELAY_T_CYCLES: u32 = 4;

/// Square duty patterns, bit `n` = output of duty step `n` (Pan Docs "Pulse channel").
const DUTY_PATTERNS: [u8; 4] = [0b1000_0000, 0b1000_0001, 0b1110_0001, 0b0111_1110];

/// A square or noise channel's counters (the noise channel uses `lfsr`, the squares `position`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct ToneState {
    /// T-cycles until the next duty step (while active; 0 acts as 1). Noise: the channel's
    /// clock, packed (`NoiseClock`); during a catch-up, T-cycles until the next LFSR shift.
    pub timer: u32,
    /// Length counter: counts down to 0, which silences the channel when length is enabled.
    pub length: u16,
    /// Noise: the 15-bit linear-feedback shift register.
    pub lfsr: u16,
    /// 1 while the channel is on (its NR52 status bit).
    #[state(flag)]
    pub active: u8,
    /// Square: duty step 0..=7 in bits 0-2; bit 3 (`SQUARE_SILENT_UNTIL_STEP`) set while a
    /// trigger's start-up delay holds the output at 0, bits 4-5 (`SQUARE_DUTY_HELD`) while a
    /// duty change waits for the next step, bit 6 (`SQUARE_NOT_STEPPED`) until the first step
    /// after a trigger. Every duty step clears bits 3-7.
    pub position: u8,
    /// Envelope volume 0..=15 (masked on use).
    pub volume: u8,
    /// Envelope periods (64 Hz, counted at frame sequencer step 6) until the envelope arms,
    /// in bits 0-3; bit 7 (`ENVELOPE_ARMED`): it steps at the next step 7; bits 4-5
    /// (`ENVELOPE_DUE_SHIFT`): at double speed, APU cycles until that step lands.
    pub envelope_timer: u8,
    /// 1 until the envelope reaches 0 or 15 and stops.
    #[state(flag)]
    pub envelope_running: u8,
    pub _pad: [u8; 3],
}

/// The wave channel's counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct WaveState {
    /// T-cycles until the next sample read (while active; 0 acts as 1).
    pub timer: u32,
    /// Bits 0-7: T-cycles since the channel last read wave RAM (stops at
    /// `SINCE_READ_CAP_T_CYCLES`). Bits 8-15: its reads in the background after a trigger
    /// (`wave::BACKGROUND_PULSED` and the bits beside it: the CPU's bus address, a read due,
    /// triggered since the DAC went off).
    pub t_cycles_since_read: u32,
    /// Length counter (up to 256).
    pub length: u16,
    /// 1 while the channel is on.
    #[state(flag)]
    pub active: u8,
    /// Sample index 0..=31 (masked on use); bit 7 (`wave::WAVE_BUFFER_FROM_PC`) while a stop
    /// waits for the CPU's PC.
    pub position: u8,
    /// The wave RAM byte last read: the channel plays its nibbles from here, not from RAM.
    pub sample_buffer: u8,
    pub _pad: [u8; 3],
}

/// Everything in the APU that affects future register reads or samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct ApuState {
    /// Band-limited synthesis and the output high-pass.
    pub synth: SynthState,
    pub square1: ToneState,
    pub square2: ToneState,
    pub noise: ToneState,
    pub wave: WaveState,
    /// M-cycles since finished samples were last handed to the host, in the top 11 bits
    /// (`FLUSH_CLOCK_SHIFT`): `FLUSH_M_CYCLES` ticks make it carry out, so `tick` is one add
    /// and a branch on the carry, and a zeroed state has just flushed. Below them, the APU's
    /// 2 MHz phase: `ELAPSED_HALF`, `SIMULATED_HALF`, `POWER_ON_HALF` (all 0 at single speed
    /// from power-up on); lower bits unused.
    #[state(since = 1)]
    pub flush_clock: u32,
    /// M-cycles since the last flush that the channels have been simulated for (plus an APU
    /// cycle if `flush_clock` has `SIMULATED_HALF`); the rest of the elapsed ones are pending.
    pub m_cycles_simulated: u32,
    /// Square 1 sweep: the shadow frequency the sweep works on.
    pub sweep_shadow: u16,
    /// Square 1 sweep: sweep ticks (128 Hz) until the next sweep step.
    pub sweep_timer: u8,
    /// Square 1 sweep: 1 if the sweep runs (period or shift non-zero at trigger).
    #[state(flag)]
    pub sweep_enabled: u8,
    /// Square 1 sweep: 1 once a calculation used negate mode since the last trigger; clearing
    /// NR10's negate bit then silences the channel (Pan Docs; Blargg `05-sweep_details`).
    #[state(flag)]
    pub sweep_negated: u8,
    /// Frame sequencer: the step (0..=7, masked on use) the next DIV-APU event performs.
    /// Bits 3-7 (`SWEEP_CHECK_SHIFT`): APU cycles until a sweep step's overflow check
    /// completes, 0 if none is pending (0 in every older file).
    pub frame_step: u8,
    /// 1 on a CGB (in either mode): wave RAM stays reachable while the wave channel plays,
    /// a retrigger corrupts nothing, and power-off takes the length counters too (Pan Docs
    /// "Audio details"; Blargg `cgb_sound` 08-12).
    #[state(since = 2, flag)]
    pub cgb: u8,
    #[state(old_pad_len = 2)]
    pub _pad: [u8; 1],
    /// FF10..=FF2F as written (bits that read back as 1 are added on read). NR52 keeps only
    /// bit 7, the power switch; the channel bits come from the channels.
    pub regs: [u8; 0x20],
    /// FF30..=FF3F: 32 four-bit samples, high nibble first.
    pub wave_ram: [u8; 16],
}

impl ApuState {
    /// Registers as the DMG boot ROM leaves them at PC=0x0100 (Pan Docs power-up table).
    pub fn post_boot() -> ApuState {
        let mut apu = ApuState::zeroed();
        // Written values such that `value | READ_MASK` is Pan Docs' table: NR10=$80 NR11=$BF
        // NR12=$F3 NR14=$BF NR21=$3F NR22=$00 NR24=$BF NR30=$7F NR31=$FF NR32=$9F NR34=$BF
        // NR41=$FF NR42=$00 NR43=$00 NR44=$BF NR50=$77 NR51=$F3 NR52=$F1.
        apu.regs[reg::NR11] = 0x80;
        apu.regs[reg::NR12] = 0xF3;
        // The boot ROM's second beep: frequency $7C1, triggered with length disabled.
        apu.regs[reg::NR13] = 0xC1;
        apu.regs[reg::NR14] = 0x07;
        apu.regs[reg::NR50] = 0x77;
        apu.regs[reg::NR51] = 0xF3;
        apu.regs[reg::NR52] = 0x80;
        // Square 1 is still on, its envelope ($F3: 15 down, every 3/64 s) long since at 0.
        // UNVERIFIED: the duty position, timers and frame sequencer step depend on how long the
        // boot ROM ran; these are guesses no test here pins.
        apu.square1.active = 1;
        apu.square1.length = 64;
        apu.square1.timer = square_period(0x7C1);
        apu.sweep_timer = 8;
        apu.noise.lfsr = 0x7FFF;
        apu.synth.assume_level(apu.mix());
        // Start with the capacitor charged to that level: no click at power-on.
        let charged = apu.synth.level().map(|level| level << kernel::ONE_BITS);
        apu.synth.set_integrators(charged);
        apu.synth.set_highpass_charges(charged);
        apu
    }

    /// One M-cycle, called at the START of every M-cycle before the CPU's access.
    #[inline]
    pub fn tick(&mut self, audio: &mut AudioOut) {
        let (clock, carry) = self.flush_clock.overflowing_add(1 << FLUSH_CLOCK_SHIFT);
        self.flush_clock = clock;
        if carry {
            self.flush(audio);
        }
    }

    /// HALT skipping: exactly equivalent to `n` calls of `tick` (no DIV-APU event inside).
    #[inline]
    pub fn advance(&mut self, n: u32, audio: &mut AudioOut) {
        if n < FLUSH_M_CYCLES {
            // Usually no flush falls inside: one add, as in `tick`.
            let (clock, carry) = self.flush_clock.overflowing_add(n << FLUSH_CLOCK_SHIFT);
            if !carry {
                self.flush_clock = clock;
                return;
            }
        }
        self.advance_through_flushes(n, audio);
    }

    /// One CPU M-cycle at CGB double speed: one 2 MHz APU cycle (`tick`'s add and branch).
    #[inline]
    pub fn tick_double_speed(&mut self, audio: &mut AudioOut) {
        let (clock, carry) = self.flush_clock.overflowing_add(ELAPSED_HALF);
        self.flush_clock = clock;
        if carry {
            self.flush(audio);
        }
    }

    /// `n` CPU M-cycles at CGB double speed (`n` APU cycles; no DIV-APU event inside).
    #[inline]
    pub fn advance_double_speed(&mut self, n: u32, audio: &mut AudioOut) {
        if n < FLUSH_M_CYCLES {
            // Usually no flush falls inside: one add, as in `tick_double_speed`.
            let (clock, carry) = self.flush_clock.overflowing_add(n * ELAPSED_HALF);
            if !carry {
                self.flush_clock = clock;
                return;
            }
        }
        self.advance_double_speed_through_flushes(n, audio);
    }

    #[cold]
    #[inline(never)]
    fn advance_double_speed_through_flushes(&mut self, mut n: u32, audio: &mut AudioOut) {
        while n > 0 {
            // APU cycles until the clock carries out (a whole flush period since the last).
            let room = ((1 << 32) - u64::from(self.flush_clock & !(ELAPSED_HALF - 1))) >> 20;
            let step = u64::from(n).min(room);
            n -= step as u32;
            let clock = u64::from(self.flush_clock) + (step << (FLUSH_CLOCK_SHIFT - 1));
            self.flush_clock = clock as u32;
            if clock >> 32 != 0 {
                self.flush(audio);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn advance_through_flushes(&mut self, mut n: u32, audio: &mut AudioOut) {
        while n > 0 {
            // The ticks up to the next flush at once (then the flush, as `tick` would).
            let step = n.min(FLUSH_M_CYCLES - self.m_cycles_elapsed());
            n -= step;
            // In 64 bits: a whole period (`step` = FLUSH_M_CYCLES) does not fit the shifted u32.
            let clock = u64::from(self.flush_clock) + (u64::from(step) << FLUSH_CLOCK_SHIFT);
            self.flush_clock = clock as u32;
            if clock >> 32 != 0 {
                self.flush(audio);
            }
        }
    }

    /// The DIV-APU event: a falling edge of DIV bit 4 (system counter bit 12), whether from
    /// counting or from a DIV write. Called by the machine after `tick` in that cycle.
    /// `synthesize`: whether samples are being made ([`AudioOut::synthesizes`]).
    pub fn div_apu_event(&mut self, synthesize: bool) {
        self.frame_sequencer_event(synthesize, false, None);
    }

    /// The DIV-APU event at CGB double speed (a falling edge of DIV bit 5): as
    /// [`Self::div_apu_event`], but an envelope step lands in the CPU M-cycle after the
    /// event's (SameBoy's `pending_envelope_tick`, CGB-D/E; UNVERIFIED, the documentation is
    /// silent). Pinned by `probes/apu/env_div_ds`.
    pub fn div_apu_event_double_speed(&mut self, synthesize: bool) {
        self.frame_sequencer_event(synthesize, true, None);
    }

    /// The event, with the owed flushes (`owed_flush.rs`) settled first if it catches up
    /// and `audio` is given.
    fn frame_sequencer_event(
        &mut self,
        synthesize: bool,
        delay_envelope: bool,
        audio: Option<&mut AudioOut>,
    ) {
        // An event that changes nothing the channels run on commutes with their catch-up,
        // which is then left to the next one (fewer, longer catch-ups: the same state and
        // samples, as a catch-up in one piece or in many ends the same).
        let quiet = self.event_is_quiet(synthesize);
        if quiet {
            self.skip_catch_up();
        } else {
            if let Some(audio) = audio {
                self.settle_owed_flushes(audio);
            }
            self.catch_up_to(self.apu_cycles_elapsed(), synthesize);
        }
        if !self.powered() {
            return;
        }
        if self.flush_clock & SKIP_DIV_APU_EVENT != 0 {
            self.flush_clock ^= SKIP_DIV_APU_EVENT | SKIPPED_DIV_APU_EVENT;
            return;
        }
        if self.flush_clock & SKIPPED_DIV_APU_EVENT != 0 {
            self.flush_clock &= !SKIPPED_DIV_APU_EVENT;
            self.frame_step &= !7;
        }
        let step = self.frame_step & 7;
        self.frame_step = (self.frame_step & !7) | ((step + 1) & 7);
        if step & 1 == 0 {
            self.clock_lengths();
        }
        if step == 2 || step == 6 {
            self.clock_sweep();
        }
        for (tone, nrx2) in self.envelope_channels() {
            if step == 6 {
                count_envelope(tone);
            }
            if delay_envelope && tone.envelope_timer & ENVELOPE_ARMED != 0 {
                // Arms again after the delayed step (`catch_up_to`).
                make_envelope_due(tone);
            } else {
                clock_envelope(tone, nrx2);
                arm_envelope(tone, nrx2);
            }
        }
        if !quiet {
            self.update_level(synthesize);
        }
    }

    /// Whether the next DIV-APU event leaves alone everything a catch-up reads or writes:
    /// no length runs out, no sweep steps or completes a check, no envelope steps (or is
    /// delayed), so it touches only counters the channels never look at (lengths, the
    /// sweep's and envelopes' timers, an envelope arming with nothing due) and the mixer's
    /// level stays. A synthesizer whose level does not match the mixer (synthesis just
    /// switched on) is brought up to date by the plain way, as before.
    fn event_is_quiet(&self, synthesize: bool) -> bool {
        #[cfg(test)]
        if tests::plain_paths() {
            return false;
        }
        if !self.powered() || self.flush_clock & SKIP_DIV_APU_EVENT != 0 {
            // The event changes no channel.
            return true;
        }
        if self.sweep_check_apu_cycles() != 0 {
            return false;
        }
        let tones = [&self.square1, &self.square2, &self.noise];
        if tones
            .iter()
            .any(|tone| tone.envelope_timer & ENVELOPE_ARMED != 0)
        {
            return false;
        }
        let step = if self.flush_clock & SKIPPED_DIV_APU_EVENT != 0 {
            0
        } else {
            self.frame_step & 7
        };
        if step & 1 == 0 && self.length_runs_out() {
            return false;
        }
        let nr10 = self.regs[reg::NR10];
        if (step == 2 || step == 6)
            && self.sweep_timer <= 1
            && self.sweep_enabled != 0
            && nr10 & 0x70 != 0
        {
            return false;
        }
        self.level_is_current(synthesize)
    }

    /// The channels with an envelope (both squares and noise), each with its NRx2.
    fn envelope_channels(&mut self) -> [(&mut ToneState, u8); 3] {
        let [nr12, nr22, nr42] = [
            self.regs[reg::NR12],
            self.regs[reg::NR22],
            self.regs[reg::NR42],
        ];
        [
            (&mut self.square1, nr12),
            (&mut self.square2, nr22),
            (&mut self.noise, nr42),
        ]
    }

    /// Brings the channels up to the present. Has no observable effect on registers or
    /// samples (the APU catches up by itself whenever that matters); tests use it to compare
    /// a lazy state with an eager one.
    pub fn catch_up(&mut self) {
        self.catch_up_to(self.apu_cycles_elapsed(), true);
    }

    /// Leaves the channels where they are at an event or write that needs no catch-up (it
    /// commutes with it), noting the moment (`SKIPPED_CATCH_UP_BITS`).
    fn skip_catch_up(&mut self) {
        let now = self.apu_cycles_elapsed();
        if now > self.apu_cycles_simulated() {
            self.flush_clock = self.flush_clock & !SKIPPED_CATCH_UP_BITS | (now + 1);
        }
    }

    /// Whether the synthesizer's level is the mixer's (always, after a catch-up with
    /// synthesis on; not yet when synthesis was just switched on): a catch-up may be skipped
    /// only then, as the update after it would change the level.
    fn level_is_current(&self, synthesize: bool) -> bool {
        !synthesize || self.synth.level() == self.mix()
    }

    /// Catches the channels up to the last event or write at which they were left behind
    /// (`SKIPPED_CATCH_UP_BITS`), as a catch-up there would have: called by the machine
    /// before it hands the state to the host. `synthesize`: as for
    /// [`Self::div_apu_event`].
    pub fn settle_skipped_catch_ups(&mut self, synthesize: bool) {
        let skipped = self.flush_clock & SKIPPED_CATCH_UP_BITS;
        if skipped == 0 {
            return;
        }
        // (Bounded by the ticked time: only a hand-made state holds more.)
        let at = (skipped - 1).min(self.apu_cycles_elapsed());
        if at > self.apu_cycles_simulated() {
            self.catch_up_to(at, synthesize);
        }
        self.flush_clock &= !SKIPPED_CATCH_UP_BITS;
    }

    /// Simulates the channels up to `elapsed` 2 MHz APU cycles after the last flush, feeding
    /// the synthesizer if `synthesize`.
    fn catch_up_to(&mut self, elapsed: u32, synthesize: bool) {
        self.flush_clock &= !SKIPPED_CATCH_UP_BITS;
        let mut t_cycles = u64::from(elapsed.saturating_sub(self.apu_cycles_simulated())) * 2;
        self.set_apu_cycles_simulated(elapsed);
        // A background read of the wave channel's that was due when the last catch-up ended
        // (`wave::BACKGROUND_READ_DUE`) comes at its own T-cycle.
        loop {
            let due = u64::from(self.background_read_due());
            if due == 0 || t_cycles < due {
                self.set_background_read_due((due - due.min(t_cycles)) as u32);
                self.advance_channels(t_cycles, synthesize);
                return;
            }
            self.set_background_read_due(0);
            self.advance_channels(due, synthesize);
            t_cycles -= due;
            self.background_read(synthesize);
        }
    }

    /// The channels `t_cycles` on (a whole number of APU cycles), the sequencer's delayed
    /// events at their T-cycles.
    fn advance_channels(&mut self, mut t_cycles: u64, synthesize: bool) {
        // A delayed envelope step (the same countdown in every channel it applies to).
        let due = [&self.square1, &self.square2, &self.noise]
            .map(envelope_due)
            .into_iter()
            .max()
            .unwrap_or(0);
        if due != 0 {
            let due_t_cycles = u64::from(due) * 2;
            if t_cycles < due_t_cycles {
                let passed = (t_cycles / 2) as u8;
                bring_envelope_due(&mut self.square1, passed);
                bring_envelope_due(&mut self.square2, passed);
                bring_envelope_due(&mut self.noise, passed);
            } else {
                self.run_timed(due_t_cycles, synthesize);
                t_cycles -= due_t_cycles;
                for (tone, nrx2) in self.envelope_channels() {
                    if envelope_due(tone) != 0 {
                        clock_envelope(tone, nrx2);
                        arm_envelope(tone, nrx2);
                    }
                }
                self.update_level(synthesize);
            }
        }
        self.run_timed(t_cycles, synthesize);
    }

    /// The channels `t_cycles` on, completing a pending sweep check at its T-cycle.
    fn run_timed(&mut self, mut t_cycles: u64, synthesize: bool) {
        let check = u64::from(self.sweep_check_apu_cycles()) * 2;
        if check != 0 {
            if t_cycles < check {
                self.set_sweep_check_apu_cycles(((check - t_cycles) / 2) as u8);
            } else {
                self.run_pieces(check, synthesize);
                t_cycles -= check;
                self.finish_sweep_check();
                self.update_level(synthesize);
            }
        }
        self.run_pieces(t_cycles, synthesize);
    }

    /// The channels `t_cycles` (a whole number of APU cycles) on, in pieces (no event of the
    /// sequencer's inside).
    fn run_pieces(&mut self, mut t_cycles: u64, synthesize: bool) {
        if t_cycles == 0 {
            return;
        }
        // The noise channel runs on the T-cycles to its next shift, which its clock gives.
        let nr43 = self.regs[reg::NR43];
        let mut clock = NoiseClock::from_packed(self.noise.timer);
        self.noise.timer = clock.t_cycles_to_shift(nr43);
        clock.advance((t_cycles / 2) as u32, nr43);
        while t_cycles > 0 {
            let piece = t_cycles.min(u64::from(CATCH_UP_PIECE_T_CYCLES)) as u32;
            t_cycles -= u64::from(piece);
            #[cfg(test)]
            if tests::plain_paths() {
                self.run_reference(piece, synthesize);
                continue;
            }
            self.run(piece, synthesize);
        }
        self.noise.timer = clock.packed();
    }

    fn powered(&self) -> bool {
        self.regs[reg::NR52] & 0x80 != 0
    }

    /// T-cycles ticked but not yet simulated. Below a flush period, even for a corrupt
    /// state, so a catch-up is always short.
    fn pending_t_cycles(&self) -> u32 {
        self.apu_cycles_elapsed()
            .saturating_sub(self.apu_cycles_simulated())
            * 2
    }

    /// 2 MHz APU cycles ticked since the last flush.
    fn apu_cycles_elapsed(&self) -> u32 {
        self.flush_clock >> (FLUSH_CLOCK_SHIFT - 1)
    }

    /// 2 MHz APU cycles since the last flush that the channels have been simulated for.
    fn apu_cycles_simulated(&self) -> u32 {
        self.m_cycles_simulated.saturating_mul(2)
            + u32::from(self.flush_clock & SIMULATED_HALF != 0)
    }

    fn set_apu_cycles_simulated(&mut self, apu_cycles: u32) {
        self.m_cycles_simulated = apu_cycles / 2;
        self.flush_clock &= !SIMULATED_HALF;
        if apu_cycles & 1 != 0 {
            self.flush_clock |= SIMULATED_HALF;
        }
    }

    /// The APU's 1 MHz phase (SameBoy's `lf_div`): 1 from power-on, flipped by every odd
    /// 2 MHz APU cycle (so only double speed moves it).
    fn lf_div(&self) -> u32 {
        let power_on = self.flush_clock & POWER_ON_HALF != 0;
        let now = self.flush_clock & ELAPSED_HALF != 0;
        u32::from(power_on == now)
    }

    /// Powering on starts the 1 MHz phase at 1 (`lf_div`).
    fn start_lf_div(&mut self) {
        self.flush_clock &= !POWER_ON_HALF;
        if self.flush_clock & ELAPSED_HALF != 0 {
            self.flush_clock |= POWER_ON_HALF;
        }
    }

    /// M-cycles ticked since the last flush (below `FLUSH_M_CYCLES`).
    fn m_cycles_elapsed(&self) -> u32 {
        self.flush_clock >> FLUSH_CLOCK_SHIFT
    }

    /// Kept out of line: `tick` is inlined into every bus access and should stay tiny.
    #[cold]
    #[inline(never)]
    fn flush(&mut self, audio: &mut AudioOut) {
        // The clock has just carried out: a whole flush period (and maybe an APU cycle) has
        // passed.
        if self.flush_may_be_owed(audio) {
            self.owe_flush(audio);
            return;
        }
        let elapsed = FLUSH_M_CYCLES * 2 + u32::from(self.flush_clock & ELAPSED_HALF != 0);
        self.flush_after(elapsed, audio);
    }

    /// A frame has just completed (called by the machine before this cycle's `tick`): flush
    /// early. Rewind snapshots are taken at frame ends, and a flush leaves the synthesizer in
    /// its compact form (ring rotated, only the last few steps pending); mid-period, up to a
    /// whole period of steps would still sit in the ring and every snapshot would pay for
    /// them. Output is unchanged: only samples wholly in the past are finished.
    #[cold]
    #[inline(never)]
    pub fn flush_at_frame_end(&mut self, audio: &mut AudioOut) {
        self.settle_owed_flushes(audio);
        self.flush_after(self.apu_cycles_elapsed(), audio);
    }

    /// Catches up to `elapsed` APU cycles (all that have ticked) and hands samples on.
    fn flush_after(&mut self, elapsed: u32, audio: &mut AudioOut) {
        let synthesize = audio.synthesizes();
        self.catch_up_to(elapsed, synthesize);
        if synthesize {
            let stereo_empty = self.synth.emit(audio);
            self.synth.rotate_head_to_zero(stereo_empty);
        }
        // The period starts on a whole M-cycle: an odd APU cycle stays, elapsed and simulated.
        self.flush_clock &= FLUSH_CLOCK_PHASE_BITS;
        self.m_cycles_simulated = 0;
    }
}
