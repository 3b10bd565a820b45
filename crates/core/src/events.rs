//! What a run reports back to the host. The core never calls back into the host.

/// A set of things that happened during a call to `Core::run_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events(pub u32);

impl Events {
    /// The PPU finished a frame (entered VBlank), or a frame's time passed with the LCD off.
    pub const FRAME_READY: Events = Events(1 << 0);
    /// A byte went out on the serial port (see `Output::serial`).
    pub const SERIAL_BYTE: Events = Events(1 << 1);
    /// The CPU executed an illegal opcode and is locked until reset.
    pub const CPU_LOCKED: Events = Events(1 << 2);
    /// The CPU executed `LD B,B` (the Mooneye test suite's "finished" signal).
    pub const BREAKPOINT: Events = Events(1 << 3);
    /// The cartridge's battery-backed RAM or RTC was written.
    pub const BATTERY_DIRTY: Events = Events(1 << 4);
    /// The requested M-cycle was reached.
    pub const TARGET_REACHED: Events = Events(1 << 5);
    /// Internal, never reported: the CPU read LY or STAT, so the run loop looks for a
    /// polling loop to skip (`poll_loop`).
    pub(crate) const POLL_READ: Events = Events(1 << 31);

    /// Nothing happened.
    pub const fn empty() -> Events {
        Events(0)
    }
    /// Whether every event of `other` happened.
    pub const fn contains(self, other: Events) -> bool {
        self.0 & other.0 == other.0
    }
    /// Whether any event of `other` happened.
    pub const fn intersects(self, other: Events) -> bool {
        self.0 & other.0 != 0
    }
    /// Adds the events of `other`.
    pub fn insert(&mut self, other: Events) {
        self.0 |= other.0;
    }
}

impl std::ops::BitOr for Events {
    type Output = Events;
    fn bitor(self, rhs: Events) -> Events {
        Events(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Events {
    fn bitor_assign(&mut self, rhs: Events) {
        self.0 |= rhs.0;
    }
}
