//! The per-M-cycle tick and the deferral of quiet ticks: full ticks, catching the
//! components up, and the length of the quiet window that follows (see `Machine`).

use super::*;

/// The system-counter bit whose falling edge clocks the APU frame sequencer (DIV bit 4).
pub(super) const DIV_APU_BIT: u16 = 1 << 12;
/// The same at CGB double speed (DIV bit 5), so that the sequencer keeps its 512 Hz.
pub(super) const DIV_APU_BIT_DOUBLE_SPEED: u16 = 1 << 13;
/// The system-counter bit that clocks the APU frame sequencer at either speed.
#[inline(always)]
pub(super) fn div_apu_bit(double_speed: bool) -> u16 {
    if double_speed {
        DIV_APU_BIT_DOUBLE_SPEED
    } else {
        DIV_APU_BIT
    }
}
/// System-counter T-cycles between falls of `DIV_APU_BIT`.
const DIV_APU_PERIOD: u32 = (DIV_APU_BIT as u32) << 1;
/// Whether counter bit 12 falls (a DIV-APU event at single speed) within the `n` M-cycles
/// after the system counter reads `counter`.
#[inline(always)]
pub(super) fn div_apu_event_within(counter: u16, n: u32) -> bool {
    let edge = DIV_APU_PERIOD - (u32::from(counter) & (DIV_APU_PERIOD - 1));
    u64::from(n) * 4 >= u64::from(edge)
}
/// The counter bits whose falls always matter to `counter_edges` (the serial clock's bit
/// depends on SC).
pub(super) const COUNTER_EDGE_BITS: u16 = SERIAL_CLOCK_BIT | DIV_APU_BIT | DIV_APU_BIT_DOUBLE_SPEED;

impl<'a> Machine<'a> {
    /// Brings the components up to date before a read of what PPU steps change (its
    /// registers, the VRAM and OAM locks, a CGB's mode-3 palette lock) if the deferred
    /// ticks may have run a step: a quiet window may cross steps that request nothing
    /// (`PpuState::steps_due_within`).
    #[inline(always)]
    pub(super) fn sync_ppu_view(&mut self) {
        let deferred = self.hw.m_cycles - self.clock.synced_m_cycles;
        if deferred != 0 && self.hw.ppu.steps_due_within(deferred) {
            self.sync();
        }
    }

    /// One M-cycle of everything but the CPU. The order is hardware behaviour: the timer's
    /// counter also clocks serial and the APU frame sequencer. The PPU raises its requests at
    /// their dot, seen by the fetch's sample in the same M-cycle; a halted DMG also sees
    /// those due in the next dot (`Bus::halt_wake_interrupts`). With that every DMG Mooneye
    /// acceptance test passes, including `intr_2_0_timing`, `vblank_stat_intr-GS` and
    /// `hblank_ly_scx_timing-GS`, and Mealybug's mid-line writes land on their pixel.
    ///
    /// Counted one M-cycle at a time even inside a quiet window: counting a step's ticks
    /// once at its end measured dearer (docs/architecture.md, "chosen by measurement").
    #[inline(always)]
    pub(super) fn tick(&mut self) {
        if self.clock.count_tick() {
            rarely();
            self.tick_full(None);
        }
    }

    /// `tick` for an M-cycle in which the CPU puts `addr` on the address bus.
    #[inline(always)]
    pub(super) fn tick_at(&mut self, addr: u16) {
        if self.clock.count_tick() {
            rarely();
            self.tick_full(Some(addr));
        }
    }

    /// The quiet M-cycles before this one, then this one in full; then the length of the
    /// quiet window that follows. `bus`: the address the CPU puts on the bus in this
    /// M-cycle, if it accesses memory; the APU's wave channel may read at it
    /// (`ApuState::note_bus_address`), and while it may, the quiet window keeps every
    /// M-cycle near its read in full (`apu_bus_quiet_m_cycles`).
    #[inline(never)]
    pub(super) fn tick_full(&mut self, bus: Option<u16>) {
        self.hw.m_cycles = self.clock.full_tick_m_cycle;
        // Ticks nested in this one (an HBlank VRAM DMA's stall) start with a full tick.
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
        self.catch_up_to(self.hw.m_cycles - 1);
        self.tick_now();
        self.clock.synced_m_cycles = self.hw.m_cycles;
        if let Some(addr) = bus
            && self.hw.apu.watches_bus()
        {
            self.hw.apu.note_bus_address(addr, self.audio.synthesizes());
        }
        let quiet = if self.defer_quiet_ticks {
            self.quiet_m_cycles(u32::MAX)
        } else {
            0
        };
        // From the M-cycle the components stand at: an HBlank VRAM DMA block's stall ticks
        // on inside this call and may leave them behind the clock, in its own quiet window.
        // The next full tick is never before the next M-cycle, nor after the run loop's stop.
        let next = self.clock.synced_m_cycles + u64::from(quiet) + 1;
        let end = self.clock.window_end(next, self.hw.m_cycles);
        self.set_full_tick_m_cycle(end);
        // A full tick may change everything the run loop's checks look at.
        self.require_checks();
    }

    /// Brings the timer, PPU and APU up to the current M-cycle (its tick included).
    #[inline(always)]
    pub(super) fn sync(&mut self) {
        self.settle_clock();
        if self.clock.synced_m_cycles != self.hw.m_cycles {
            self.catch_up_to(self.hw.m_cycles);
        }
    }

    /// `sync`, and the next tick runs in full: for accesses that may change what is quiet.
    #[inline(always)]
    pub(super) fn sync_and_recheck(&mut self) {
        self.sync();
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
    }

    /// Runs the deferred quiet ticks up to and including M-cycle `target`.
    #[inline(never)]
    pub(super) fn catch_up_to(&mut self, target: u64) {
        let Some(n) = target
            .checked_sub(self.clock.synced_m_cycles)
            .filter(|&n| n != 0)
        else {
            return;
        };
        // The window never exceeds one `quiet_m_cycles`, a u32.
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        self.advance_components(n);
        self.clock.synced_m_cycles = target;
    }

    /// The timer, PPU and APU `n` M-cycles on (ending at `hw.m_cycles`' current value
    /// minus nothing: the caller has set the clock), all quiet.
    #[inline(always)]
    pub(super) fn advance_components(&mut self, n: u32) {
        if self.hw.dma.active != 0 {
            self.advance_dma(n);
        }
        let hw = &mut *self.hw;
        let counter = hw.timer.system_counter;
        hw.timer.advance(n);
        if hw.cgb.double_speed() {
            self.advance_double_speed(n);
            return;
        }
        // The common case first: the memory view is built only when the PPU reads it.
        if !hw.ppu.advance_quiet::<4>(n) {
            hw.ppu.advance_of::<4>(
                n,
                video_memory!(hw),
                &mut hw.interrupt_flag,
                &mut self.screen,
            );
        }
        if !div_apu_event_within(counter, n) {
            // The common case: no frame-sequencer event inside.
            hw.apu.advance(n, self.audio);
        } else {
            self.advance_apu_through_events(counter, n);
        }
    }

    /// The APU `n` M-cycles on from system counter `counter` at single speed, with the
    /// frame sequencer's DIV-APU events where counter bit 12 falls: a quiet window passes
    /// them (they request nothing and change only what APU reads, which catch up first).
    /// As `tick_now`, each event comes after the APU ticks before its M-cycle.
    #[cold]
    #[inline(never)]
    pub(super) fn advance_apu_through_events(&mut self, counter: u16, n: u32) {
        let start = u32::from(counter);
        let mut fall = (start | (DIV_APU_PERIOD - 1)) + 1;
        let mut ticked = 0;
        loop {
            // The tick that brings the counter to `fall` or past it.
            let tick = (fall - start).div_ceil(4);
            if tick > n {
                break;
            }
            self.hw.apu.advance(tick - 1 - ticked, self.audio);
            self.hw.apu.div_apu_event_owing(self.audio);
            ticked = tick - 1;
            fall += DIV_APU_PERIOD;
        }
        self.hw.apu.advance(n - ticked, self.audio);
    }

    /// `advance_components` at double speed: the PPU moves 2 dots per CPU M-cycle, the
    /// APU one 2 MHz cycle.
    #[cold]
    pub(super) fn advance_double_speed(&mut self, n: u32) {
        let hw = &mut *self.hw;
        hw.ppu.advance_of::<2>(
            n,
            video_memory!(hw),
            &mut hw.interrupt_flag,
            &mut self.screen,
        );
        hw.apu.advance_double_speed(n, self.audio);
    }

    /// The system-counter bit that clocks the APU frame sequencer at the current speed.
    #[inline(always)]
    pub(super) fn div_apu_bit(&self) -> u16 {
        div_apu_bit(self.hw.cgb.double_speed())
    }

    /// M-cycles (at most `budget`) from now on during which ticking can have no observable
    /// effect: no interrupt request, no frame completion, no serial or APU clock edge, no
    /// DMA but OAM DMA's plain copying (`dma_quiet_m_cycles`; on a DMG or in compatibility
    /// mode), as long as no I/O register is written.
    pub(super) fn quiet_m_cycles(&self, budget: u32) -> u32 {
        self.quiet_m_cycles_inline(budget)
    }

    /// `quiet_m_cycles`, for a caller that makes no other call around it
    /// (`window_end_after_write`).
    #[inline(always)]
    fn quiet_m_cycles_inline(&self, budget: u32) -> u32 {
        let hw = &*self.hw;
        if hw.cgb.mode_raw == cgb::MODE_CGB {
            return self.quiet_m_cycles_cgb(budget);
        }
        let Some(others) = self.quiet_m_cycles_but_ppu(budget) else {
            return 0;
        };
        hw.ppu
            .quiet_m_cycles_of::<4>(self.screen.quiet_walk(), others)
            .min(others)
    }

    /// `quiet_m_cycles` on a DMG or in compatibility mode but for the PPU's part: OAM DMA,
    /// serial, the wave channel's bus reads and the timer. None when one of the first
    /// three leaves no quiet M-cycle (the PPU then need not be asked).
    #[inline(always)]
    fn quiet_m_cycles_but_ppu(&self, budget: u32) -> Option<u32> {
        let hw = &*self.hw;
        let budget = if hw.dma.is_busy() {
            match self.dma_quiet_m_cycles() {
                0 => return None,
                copying => budget.min(copying),
            }
        } else {
            budget
        };
        // The frame sequencer's events are not watched: `advance_components` runs them.
        let mut watched = 0;
        if hw.serial.is_shifting() {
            watched |= hw.serial.clock_bit();
        }
        let budget = self.apu_bus_quiet_m_cycles(budget, &mut watched);
        if budget == 0 {
            return None;
        }
        Some(hw.timer.quiet_m_cycles(watched).min(budget))
    }

    /// `quiet_m_cycles` in CGB mode: nothing is quiet while an HBlank VRAM DMA waits, and
    /// at double speed the PPU and the frame sequencer's DIV bit change pace.
    #[cold]
    pub(super) fn quiet_m_cycles_cgb(&self, budget: u32) -> u32 {
        let hw = &*self.hw;
        if hw.dma.is_busy() || hw.cgb.hdma_hblank_active() {
            return 0;
        }
        // At single speed `advance_components` runs the frame sequencer's events.
        let mut watched = if hw.cgb.double_speed() {
            DIV_APU_BIT_DOUBLE_SPEED
        } else {
            0
        };
        if hw.serial.is_shifting() {
            watched |= hw.serial.clock_bit();
        }
        let budget = self.apu_bus_quiet_m_cycles(budget, &mut watched);
        if budget == 0 {
            return 0;
        }
        let others = hw.timer.quiet_m_cycles(watched).min(budget);
        let ppu_quiet = if hw.cgb.double_speed() {
            hw.ppu.quiet_m_cycles_walked::<2>(
                self.screen.quiet_walk(),
                self.double_speed_windows,
                others,
            )
        } else {
            hw.ppu
                .quiet_m_cycles_of::<4>(self.screen.quiet_walk(), others)
        };
        ppu_quiet.min(others)
    }

    /// `budget`, cut to the M-cycles before the APU's wave channel needs the CPU's bus
    /// addresses for its background reads (`ApuState::watches_bus`); and the DIV-APU bit
    /// added to `watched` while a length clock may start those reads, so that the window
    /// after it is cut. The common case (no such channel) is a few tests.
    #[inline(always)]
    fn apu_bus_quiet_m_cycles(&self, budget: u32, watched: &mut u16) -> u32 {
        let apu = &self.hw.apu;
        if apu.wave_may_stop_counting() {
            *watched |= self.div_apu_bit();
        }
        if apu.watches_bus() {
            return budget.min(apu.bus_quiet_m_cycles(self.hw.cgb.double_speed()));
        }
        budget
    }

    /// One M-cycle of every component, in full.
    #[inline(always)]
    pub(super) fn tick_now(&mut self) {
        let hw = &mut *self.hw;
        let fell = hw.timer.tick(&mut hw.interrupt_flag);
        if fell & (COUNTER_EDGE_BITS | hw.serial.clock_bit()) != 0 {
            self.counter_edges(fell);
        }
        if self.hw.dma.is_busy() {
            self.step_dma();
            // While OAM DMA runs, the PPU cannot read OAM itself (ashiepaws `strikethrough`).
            // Reported on every DMA cycle, including the one in which it finishes.
            let hw = &mut *self.hw;
            hw.ppu.set_oam_dma(hw.dma.active != 0, hw.dma.last_byte);
            self.refresh_rom_windows();
        }
        if self.hw.cgb.double_speed() {
            self.tick_double_speed();
            return;
        }
        self.tick_ppu::<4>();
        self.hw.apu.tick(self.audio);
    }

    /// Hands the host every sample that lies wholly in the past (`Core::finish_audio`).
    pub(crate) fn finish_audio(&mut self) {
        self.sync();
        self.hw.apu.flush_at_frame_end(self.audio);
    }

    pub(super) fn frame_done(&mut self) {
        self.hw.frames += 1;
        self.events |= Events::FRAME_READY;
        self.hw.apu.flush_at_frame_end(self.audio);
    }

    /// The PPU's part of one CPU M-cycle of `DOTS` dots (4, 2 at double speed, 1 for a
    /// lone dot), run as the host's `render` options ask, counting a completed frame.
    #[inline(always)]
    pub(super) fn tick_ppu<const DOTS: u16>(&mut self) {
        let hw = &mut *self.hw;
        if hw
            .ppu
            .tick_dots::<DOTS>(video_memory!(hw), &mut hw.interrupt_flag, &mut self.screen)
        {
            self.frame_done();
        }
    }

    /// The PPU and APU part of `tick_now` at double speed (see `advance_double_speed`).
    #[cold]
    pub(super) fn tick_double_speed(&mut self) {
        self.tick_ppu::<2>();
        self.hw.apu.tick_double_speed(self.audio);
    }

    /// Falling edges of the system counter that clock other components.
    #[cold]
    pub(super) fn counter_edges(&mut self, fell: u16) {
        let hw = &mut *self.hw;
        if fell & hw.serial.clock_bit() != 0 {
            hw.serial.clock(&mut hw.interrupt_flag);
        }
        if fell & self.div_apu_bit() != 0 {
            let synthesize = self.audio.synthesizes();
            if self.hw.cgb.double_speed() {
                self.hw.apu.div_apu_event_double_speed(synthesize);
            } else {
                self.hw.apu.div_apu_event_owing(self.audio);
            }
        }
    }

    /// After an I/O write: the quiet window from the written state, as `tick_full` computes
    /// it after its tick (the window is a pure function of the synced components), rather
    /// than one full tick to compute it. Only when the write ran no tick of its own (an
    /// HBlank or general VRAM DMA's stall starts its own windows).
    ///
    /// A rendering register written in mode 3 that keeps the quiet window
    /// (`PpuState::deferred_write_keeps_window`: the PPU walk answers the same with it as
    /// without it) leaves the window before the write (`window_end_before_write`) as it
    /// was: no walk (a raster effect's handler writes LYC or returns soon after, which ends
    /// it). So does SCY, BGP, OBP0 or OBP1 written at any other time (`reg`): the PPU
    /// only draws with them, so the walk, which follows its timing, answers the same.
    #[inline(always)]
    pub(super) fn recheck_quiet_after_write(&mut self, reg: u8) {
        let now = self.hw.m_cycles;
        let window_end = self.clock.window_end_before_write;
        let untouched =
            self.clock.synced_m_cycles == now && self.clock.full_tick_m_cycle == now + 1;
        if !untouched || !self.defer_quiet_ticks {
            return;
        }
        let keeps_window = if self.hw.ppu.deferred_valid != 0 {
            self.hw.ppu.deferred_write_keeps_window()
        } else {
            matches!(reg, io::SCY | io::BGP | io::OBP0 | io::OBP1)
        };
        if keeps_window
            && window_end > now + 1
            && !self.hw.apu.watches_bus()
            && !self.hw.cgb.double_speed()
        {
            self.set_full_tick_m_cycle(self.clock.window_end(window_end, now));
            return;
        }
        let end = self.window_end_after_write(reg);
        self.set_full_tick_m_cycle(end);
    }

    /// `recheck_quiet_after_write`'s window worked out again: after a write to LYC told
    /// from LYC's line where it can be (`window_after_lyc_write`), else walked. Out of
    /// line: the caller's shape stays that of one call (a raster handler's other writes
    /// and every other slow write do not pay for the LYC test).
    #[inline(never)]
    fn window_end_after_write(&self, reg: u8) -> u64 {
        let now = self.hw.m_cycles;
        if reg == io::LYC
            && let Some(end) = self.window_after_lyc_write()
        {
            return self.clock.window_end(end, now);
        }
        let quiet = self.quiet_m_cycles_inline(u32::MAX);
        self.clock.window_end(now + u64::from(quiet) + 1, now)
    }

    /// After a CPU write to LYC that ran no tick of its own (`recheck_quiet_after_write`),
    /// with the components synced: where the quiet window ends, with the PPU's part told
    /// from LYC's line rather than walked (`PpuState::lyc_write_quiet_m_cycles`,
    /// `FastPaths::lyc_write_windows`). On a DMG at single speed. Out of line: the other
    /// writes' recomputation then saves no more registers.
    #[inline(never)]
    fn window_after_lyc_write(&self) -> Option<u64> {
        if !self.lyc_write_windows || self.hw.cgb.is_cgb() || self.hw.cgb.double_speed() {
            return None;
        }
        let ppu = self
            .hw
            .ppu
            .lyc_write_quiet_m_cycles(self.screen.quiet_walk())?;
        let quiet = self.quiet_m_cycles_but_ppu(ppu).unwrap_or(0).min(ppu);
        Some(self.hw.m_cycles + u64::from(quiet) + 1)
    }

    /// The run loop's skip for a CPU that is not running (`FastPaths::halt_skipping`): up to
    /// `budget` M-cycles at once, as a stopped CPU (`skip_stopped_cycles`) or a halted or
    /// locked one (`skip_quiet_cycles`) lets them pass.
    pub(crate) fn skip_idle_cycles(&mut self, mode: crate::cpu::CpuMode, budget: u64) {
        if mode == crate::cpu::CpuMode::Stopped {
            self.skip_stopped_cycles(budget);
        } else {
            self.skip_quiet_cycles(budget);
        }
    }

    /// HALT/STOP fast path: advances every component by as many M-cycles as possible (at
    /// most `budget`) during which nothing observable can happen: no interrupt request, no
    /// frame completion, no serial or APU clock edge, no DMA but OAM DMA's plain copying
    /// (`dma_quiet_m_cycles`). Equivalent, byte for byte, to
    /// that many idle M-cycles (checked by the eager-versus-skipping determinism test).
    pub(crate) fn skip_quiet_cycles(&mut self, budget: u64) {
        self.sync();
        // A speed switch's HALT ends at a set M-cycle, which the CPU's step must see.
        let budget = match self.hw.speed_switch_wake_m_cycle {
            0 => budget,
            wake => budget.min(wake.saturating_sub(self.hw.m_cycles)),
        };
        let quiet = self.quiet_m_cycles(u32::try_from(budget).unwrap_or(u32::MAX));
        if quiet == 0 {
            return;
        }
        self.hw.m_cycles += u64::from(quiet);
        self.advance_components(quiet);
        self.clock.synced_m_cycles = self.hw.m_cycles;
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
    }
}
