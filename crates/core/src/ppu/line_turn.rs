//! A DMG's line turn in one go (`FastPaths::line_turns`): from a visible line's mode-0
//! interrupt (`Step::Mode0Interrupt`), its WY check (`Step::LineWindowCheck`) or its end
//! (`Step::LineEnd`) to the next visible line's mode 3 (`Step::LineMode3`), when a
//! catch-up's run reaches all of it, as the turn's steps would leave it.
//!
//! With the HBlank and OAM STAT sources off, only the LY=LYC source can raise the STAT
//! line in the turn, and its comparator sees two values: the line's own at the mode-0
//! interrupt, and the next line's from its mode 2 on (suspended at the OAM interrupt
//! between, which holds the last output). So the turn's four STAT updates are two: the
//! mode-0 interrupt's, and one with the next line's comparison and mode 3 (whose mode
//! raises nothing), which sees the edge mode 2 would. A turn entered after the mode-0
//! interrupt has only the second, and is taken only where the STAT line already holds the
//! comparator's output, as the mode-0 update leaves it: else the OAM interrupt's update
//! might raise an edge, or a line held high hide one, that the one update would not. The
//! locks end as mode 3 sets them all; the WY checks and the OAM scan run as the steps run
//! them.

use super::schedule::{MODE3_DOT, Step, WINDOW_CHECK_DOT};
use super::*;

impl PpuState {
    /// From `Step::Mode0Interrupt`, `Step::LineWindowCheck` or `Step::LineEnd` next (after
    /// its wait), `dots` dots before the run ends: if the turn may go in one go and the run
    /// reaches the next line's `Step::LineMode3`, runs the steps up to it and that one, and
    /// returns the dots run (the waits); else None, with nothing changed. Taken where a
    /// DMG's catch-up runs the steps outside mode 3 (`advance_lines`).
    #[inline(always)]
    pub(super) fn closed_line_turn(&mut self, dots: u32, bus: &mut Ctx) -> Option<u32> {
        // The turn's rank (as `line_turn` counts) and the waits up to `LineMode3`: the
        // step's own, the rest of mode 0 to the WY check, then the next line's dots up to
        // mode 3.
        // The raw step compared, not decoded: most catch-ups start elsewhere, and the decode
        // cost them more than the turns saved (an old state's other `Mode0Interrupt` value
        // runs the steps).
        let step = self.step;
        let at = self.line_dot.wrapping_add(self.wait_dots);
        let (rank, to_line_end) = if step == Step::Mode0Interrupt as u8 {
            (0, WINDOW_CHECK_DOT.saturating_sub(at) + 2)
        } else if step == Step::LineWindowCheck as u8 {
            (1, LINE_DOTS - WINDOW_CHECK_DOT)
        } else if step == Step::LineEnd as u8 {
            (2, 0)
        } else {
            return None;
        };
        if !bus.line_turns || self.stat & (STAT_HBLANK_SOURCE | STAT_OAM_SOURCE) != 0 {
            return None;
        }
        let waits = u32::from(self.wait_dots) + u32::from(to_line_end + MODE3_DOT);
        if dots <= waits
            || self.ly >= 143
            || (rank != 0 && self.stat_line != u8::from(self.lyc_source_output()))
            || self.is_cgb_hardware()
            || bus.double_speed
        {
            return None;
        }
        self.run_line_turn(rank, bus);
        Some(waits)
    }

    /// `closed_line_turn`'s steps, from the one of rank `rank` to `Step::LineMode3`.
    #[inline(always)]
    fn run_line_turn(&mut self, rank: u8, bus: &mut Ctx) {
        if rank == 0 {
            // `Mode0Interrupt`: the comparator still sees this line (or nothing).
            self.stat_mode_for_interrupt = 0;
            self.update_stat(bus.interrupt_flag);
        }
        if rank <= 1 {
            // `LineWindowCheck`.
            self.check_window_y();
        }
        // `LineEnd` with `LineStart`.
        self.ly += 1;
        self.screen_x = 0;
        // `LineMode2`'s comparison, held through mode 3; `LineMode3`'s mode, which raises
        // nothing (the OAM interrupt's update between only suspends the comparator).
        self.ly_for_compare = self.ly;
        self.stat_mode_for_interrupt = 3;
        self.update_stat(bus.interrupt_flag);
        self.set_mode(3);
        self.scan_oam(bus.oam);
        self.check_window_y();
        self.block_all();
        self.line_dot = MODE3_DOT;
        self.goto(Step::Mode3Start, 5);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The turn in one go against its steps, from each step it may start at, over every
    /// visible line, LYC near it with the LY=LYC source on and off, the STAT line and
    /// comparator held either way, and runs ending short of mode 3, at it and past it: the
    /// same state and the same interrupt requests (the LY=LYC edges included, which no
    /// quiet window of the oracle's ROMs reaches inside a turn).
    #[test]
    fn closed_turns_match_the_steps() {
        let vram = [0x5Au8; 0x2000];
        let oam: [u8; 160] = core::array::from_fn(|i| (i * 37 + 11) as u8);
        let mut base = PpuState::post_boot();
        base.lcdc = 0xF3;
        base.wy = 40;
        let mut closed = [0u32; 3];
        for line in 0..143u8 {
            for lyc in [line, line + 1, line + 2, 0] {
                for bits in 0..16u8 {
                    for (rank, first) in
                        [Step::Mode0Interrupt, Step::LineWindowCheck, Step::LineEnd]
                            .into_iter()
                            .enumerate()
                    {
                        let mut ppu = base;
                        ppu.ly = line;
                        ppu.lyc = lyc;
                        ppu.stat =
                            (ppu.stat & !0x78) | if bits & 1 != 0 { STAT_LYC_SOURCE } else { 0 };
                        ppu.stat_line = (bits >> 1) & 1;
                        ppu.lyc_match = (bits >> 2) & 1;
                        ppu.ly_for_compare = if bits & 8 != 0 { line } else { NONE };
                        let wait = u16::from(line & 1);
                        // Where the first step runs, and the dots from there to mode 3.
                        let (at, to_mode3) = match first {
                            Step::Mode0Interrupt => (250 + u16::from(line), 0),
                            Step::LineWindowCheck => (WINDOW_CHECK_DOT, 86),
                            _ => (LINE_DOTS, 84),
                        };
                        ppu.line_dot = at - wait;
                        ppu.goto(first, wait);
                        let waits = if first == Step::Mode0Interrupt {
                            u32::from(WINDOW_CHECK_DOT - ppu.line_dot) + 86
                        } else {
                            u32::from(wait) + to_mode3
                        };
                        for dots in [waits - 1, waits, waits + 1, waits + 40] {
                            let (mut probe, mut on, mut off) = (ppu, ppu, ppu);
                            let (mut probe_if, mut on_if, mut off_if) = (0u8, 0u8, 0u8);
                            let memory = VideoMemory::dmg(&vram, &oam);
                            let mut bus = Ctx::look_ahead(memory, &mut probe_if);
                            bus.line_turns = true;
                            let taken = probe.closed_line_turn(dots, &mut bus).is_some();
                            closed[rank] += u32::from(taken);
                            let mut bus = Ctx::look_ahead(memory, &mut on_if);
                            bus.line_turns = true;
                            let waits_run = on.closed_line_turn(dots, &mut bus).unwrap_or(0);
                            on.run(dots - waits_run, true, &mut bus);
                            let mut bus = Ctx::look_ahead(memory, &mut off_if);
                            off.run(dots, true, &mut bus);
                            assert!(
                                on == off,
                                "{first:?}, line {line}, LYC {lyc}, bits {bits:#x}, {dots} dots"
                            );
                            assert_eq!(
                                on_if, off_if,
                                "{first:?}, line {line}, LYC {lyc}, bits {bits:#x}"
                            );
                        }
                    }
                }
            }
        }
        assert!(
            closed.iter().all(|&n| n > 5_000),
            "too few closed turns: {closed:?}"
        );
    }
}
