//! What the run loop's polling-loop skips (`poll_loop`) may ask of the machine: its side
//! of `PollHooks`, and the jumps back that may start a loop.

use super::*;
use crate::poll_loop::PollHooks;

impl<'a> Machine<'a> {
    /// The byte at `addr` as the CPU would fetch it, where fetching has no effect and sees
    /// no lock: ROM, work RAM and HRAM (no cycle passes). None elsewhere.
    #[inline(always)]
    pub(super) fn code_byte(&mut self, addr: u16) -> Option<u8> {
        // The ROM windows (`cpu_read`'s fast path) hold what the map reads there.
        if addr < self.windows.end {
            return Some(self.rom_window_byte(addr));
        }
        match addr {
            0x0000..=0x7FFF | 0xC000..=0xFDFF | 0xFF80..=0xFFFE => Some(self.read_mapped(addr)),
            _ => None,
        }
    }

    /// `Bus::short_loop_jump` past its one-compare filter: asks for the run loop's checks
    /// when `target` holds a load that can start a memory polling loop (`ld a,[nn]`, or
    /// `ldh a,[n]` from HRAM); otherwise remembers it as no loop. Out of line so that
    /// the jump's own code stays small.
    #[cold]
    #[inline(never)]
    pub(super) fn look_at_loop_jump(&mut self, target: u16) {
        let load = match self.code_byte(target) {
            Some(0xFA) => true,
            Some(0xF0) => self.code_byte(target.wrapping_add(1)) >= Some(0x80),
            _ => false,
        };
        if load {
            self.loop_jump = true;
            self.require_checks();
        } else {
            self.not_a_poll_loop = target;
        }
    }
}

impl Machine<'_> {
    /// `poll_forecast` on a CGB, whose LY reads depend on the line's dot, not only on its
    /// steps: from the PPU caught up.
    #[cold]
    #[inline(never)]
    fn poll_forecast_cgb(&mut self, reg: u8) -> ReadForecast {
        self.sync();
        let hw = &*self.hw;
        hw.ppu
            .read_forecast_cgb(reg, hw.cgb.double_speed(), self.cgb_poll_forecast)
    }
}

impl PollHooks for Machine<'_> {
    #[inline(always)]
    fn m_cycles(&self) -> u64 {
        Machine::m_cycles(self)
    }

    #[inline(always)]
    fn code_byte(&mut self, addr: u16) -> Option<u8> {
        Machine::code_byte(self, addr)
    }

    fn steady_register(&mut self, addr: u16) -> Option<u8> {
        // LYC: a PPU register no step changes, nor a write deferred to mode 3's dot.
        (addr == 0xFF00 | u16::from(io::LYC)).then(|| self.hw.ppu.read_register(io::LYC))
    }

    /// Moves the clock on by as many whole iterations of `iteration` M-cycles of a loop
    /// polling work RAM or HRAM as fit within the quiet window (no full tick) and not
    /// past `limit`: exactly what running them leaves, as only the CPU writes that memory
    /// and the loop does not (`poll_loop`). Returns the M-cycle reached.
    fn skip_poll_iterations(&mut self, iteration: u64, limit: u64) -> u64 {
        let (now, room) = self.poll_room(limit);
        let skipped = room / iteration * iteration;
        self.clock.skip(skipped);
        now + skipped
    }

    /// The current M-cycle and the M-cycles a polling loop's skip may pass from it: the
    /// rest of the quiet window but its last tick (which runs in full), not past `limit`.
    fn poll_room(&mut self, limit: u64) -> (u64, u64) {
        self.settle_clock();
        let now = self.hw.m_cycles;
        if self.hw.dma.is_busy() {
            // A loop's reads and fetches may be the ones OAM DMA blocks, which see the
            // byte it copies, a different one every M-cycle.
            return (now, 0);
        }
        (
            now,
            (self.clock.ticks_left - 1).min(limit.saturating_sub(now)),
        )
    }

    /// What reads of `reg` (LY or STAT) return over the M-cycles after the current one
    /// while no register is written, as within the quiet window (`PpuState::read_forecast`):
    /// for skipping a loop that polls it. The clock is settled (`poll_room`).
    fn poll_forecast(&mut self, reg: u8) -> ReadForecast {
        let forecast = if self.hw.cgb.is_cgb() {
            self.poll_forecast_cgb(reg)
        } else {
            // The deferred M-cycles then run no step, so the PPU stands that many dots
            // behind.
            self.sync_ppu_view();
            let behind = (self.hw.m_cycles - self.clock.synced_m_cycles) as u32;
            self.hw.ppu.read_forecast(reg, behind)
        };
        debug_assert_eq!(
            forecast.at(0).map(|(value, _)| value),
            Some(self.read_io(reg)),
            "the forecast starts from the register's value"
        );
        forecast
    }

    /// Moves the clock on to `m_cycle`, which a polling loop's skip reached within the
    /// room `poll_room` gave (`poll_loop`).
    fn skip_poll_to(&mut self, m_cycle: u64) {
        self.clock.skip(m_cycle - self.hw.m_cycles);
    }

    fn not_a_poll_loop(&mut self, target: u16) {
        self.not_a_poll_loop = target;
    }

    #[inline(always)]
    fn rom_banks(&self) -> Option<[usize; 2]> {
        // `code_byte` reads 0x0000-0x7FFF from the windows exactly while they are open.
        self.windows
            .mapped()
            .map(|banks| banks.map(<*const u8>::addr))
    }
}
