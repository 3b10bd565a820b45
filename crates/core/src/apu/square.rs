//! The square channels' triggers: the start-up delay, the duty step kept across a restart
//! and the CGB's step taken on a restart.

use super::*;

/// A square channel's trigger (`nrx4`: the NRx4 value just written). The duty step stays
/// where it was (only powering the APU off resets it: Pan Docs), the first step comes a
/// start-up delay late, and a channel that was off outputs 0 until then. The delay is one
/// T-cycle pair shorter in the APU's 1 MHz phase `lf_div` = 1 (`ApuState::lf_div`, always so
/// at single speed after power-on).
pub(super) fn trigger_square(
    tone: &mut ToneState,
    nrx2: u8,
    nrx4: u8,
    period: u32,
    lf_div: u32,
    cgb: bool,
) {
    let was_on = tone.active != 0;
    let steps_on = cgb && restart_steps_on(tone, nrx4, period, was_on);
    release_held_level(tone);
    trigger_tone(tone, nrx2, period);
    let phase = 2 * (1 - lf_div);
    tone.position |= SQUARE_NOT_STEPPED;
    if was_on {
        tone.timer = period + SQUARE_RESTART_DELAY_T_CYCLES + phase;
    } else {
        tone.timer = period + SQUARE_START_DELAY_T_CYCLES + phase;
        tone.position |= SQUARE_SILENT_UNTIL_STEP;
    }
    if steps_on {
        // The step is taken now, and a running channel plays it at once.
        tone.position = (tone.position & !7) | ((tone.position + 1) & 7);
        if was_on {
            tone.position &= !SQUARE_SILENT_UNTIL_STEP;
        }
    }
}

/// CGB (CGB-E as SameBoy has it; UNVERIFIED, the documentation is silent): a trigger with
/// frequency bit 10 clear moves the duty step one on when the old countdown to the next
/// step is short: its 1 MHz count (the 2 MHz count halved) has bit 10 clear. A running
/// channel does not if its step reloaded the countdown in this very cycle; a channel
/// never started since power-on (timer 0) has the longest countdown. Pinned by
/// `probes/apu/sq2_restart_index` and `sq2_start_index`.
fn restart_steps_on(tone: &ToneState, nrx4: u8, period: u32, was_on: bool) -> bool {
    if nrx4 & 0x04 != 0 || tone.timer == 0 {
        return false;
    }
    // The hardware's countdown in 2 MHz cycles: it steps one cycle after reaching 0.
    let countdown = (tone.timer / 2) as i32 - 1;
    let count = if was_on {
        if tone.timer == period {
            return false; // Just reloaded.
        }
        (countdown - 1) / 2
    } else {
        countdown / 2
    };
    count & 0x400 == 0
}

/// CGB (CGB-E as SameBoy has it; UNVERIFIED, the documentation is silent): an NRx4 write
/// without a trigger that takes frequency bits 8-10 from 7 to anything else, in the two
/// 2 MHz cycles after a duty step reloaded the countdown (not the trigger's start-up), undoes
/// that step: the countdown keeps the old length and the step is taken again when it runs out.
/// The level already out holds until then. Pinned by `probes/apu/sq2_freq_high`.
pub(super) fn undo_step_on_high_write(
    tone: &mut ToneState,
    nrx1: u8,
    old: u8,
    value: u8,
    old_period: u32,
) {
    let leaves_7 = old & 7 == 7 && value & 7 != 7;
    let just_stepped = tone.timer == old_period || tone.timer + 2 == old_period;
    if value & 0x80 != 0 || tone.active == 0 || !leaves_7 || !just_stepped {
        return;
    }
    if tone.position & SQUARE_NOT_STEPPED != 0 {
        return;
    }
    hold_square_level(tone, nrx1);
    tone.position =
        tone.position & !(7 | SQUARE_SILENT_UNTIL_STEP) | (tone.position.wrapping_sub(1) & 7);
}
