//! Keeps `<rom>.sav` up to date while the player runs.
//!
//! The rule: the save file is written only after the game wrote cartridge RAM (or its
//! clock), and what is written is the cartridge RAM of the timeline being played at that
//! moment. So starting, loading, rewinding or seeking on their own never touch the file;
//! rewinding past an in-game save and playing on keeps the older file until the game writes
//! RAM again, and then it holds what this timeline's game wrote.
//!
//! Timing: a game that writes RAM every frame costs one write a second; a single in-game
//! save reaches the disk within about a second (sooner once RAM has been quiet for
//! [`QUIET`]). The write itself (fsync can take tens of milliseconds) happens on a
//! background thread, so the emulation thread only copies the bytes; only the latest
//! pending copy is written. `flush` (window closed, signal, switching ROM) waits for it.

use super::{unix_now, write_atomic};
use backspin_core::Core;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// At most one write per this interval while the game keeps writing.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// Written sooner when RAM has been untouched this long: one in-game save is usually a
/// burst of writes over a few frames; waiting for the burst to end avoids saving half of it.
pub const QUIET: Duration = Duration::from_millis(100);

/// Owns the background writer of one save file.
pub struct BatteryKeeper {
    path: PathBuf,
    shared: Arc<Shared>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// First and latest RAM write not yet handed to the writer.
    dirty: Option<(Instant, Instant)>,
    last_handoff: Option<Instant>,
    handoffs: u64,
}

struct Shared {
    slot: Mutex<Slot>,
    /// Signalled when a job arrives or the keeper stops.
    work: Condvar,
    /// Signalled when the writer has finished a job.
    done: Condvar,
}

#[derive(Default)]
struct Slot {
    pending: Option<Vec<u8>>,
    writing: bool,
    stop: bool,
    /// The last write failed: say so once, not every second.
    failing: bool,
    written: u64,
}

impl BatteryKeeper {
    /// A keeper for `path`; the file is not touched until the game writes RAM.
    pub fn new(path: PathBuf) -> BatteryKeeper {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::default()),
            work: Condvar::new(),
            done: Condvar::new(),
        });
        let writer = {
            let shared = Arc::clone(&shared);
            let path = path.clone();
            std::thread::Builder::new()
                .name("battery save".into())
                .spawn(move || write_loop(&shared, &path))
                .map_err(|error| log::warn!("battery saves run on the emulation thread: {error}"))
                .ok()
        };
        BatteryKeeper {
            path,
            shared,
            writer,
            dirty: None,
            last_handoff: None,
            handoffs: 0,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The game wrote battery-backed RAM or clock registers (`Events::BATTERY_DIRTY`).
    pub fn note_dirty(&mut self, now: Instant) {
        self.dirty = Some(match self.dirty {
            Some((first, _)) => (first, now),
            None => (now, now),
        });
    }

    /// Called once per emulated frame: hands the RAM to the writer when a write is due.
    /// Does nothing (no copy, no clock read) unless the game wrote RAM.
    pub fn poll(&mut self, core: &Core, now: Instant) {
        let Some((first, latest)) = self.dirty else {
            return;
        };
        let interval_passed = self
            .last_handoff
            .is_none_or(|last| now.saturating_duration_since(last) >= MIN_INTERVAL);
        let settled = now.saturating_duration_since(latest) >= QUIET
            || now.saturating_duration_since(first) >= MIN_INTERVAL;
        if interval_passed && settled {
            self.hand_off(core, now);
        }
    }

    /// Writes any unsaved RAM now and waits until it is on disk (or failed, with a
    /// warning). For closing, signals and switching ROM.
    pub fn flush(&mut self, core: &Core) {
        self.save_pending(core);
        let mut slot = lock(&self.shared.slot);
        while slot.pending.is_some() || slot.writing {
            slot = self
                .shared
                .done
                .wait(slot)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Hands unsaved RAM to the writer now, without waiting for the interval or for it to
    /// reach the disk: before a rewind moves the core away from the RAM the game wrote.
    pub fn save_pending(&mut self, core: &Core) {
        if self.dirty.is_some() {
            self.hand_off(core, Instant::now());
        }
    }

    /// How many times RAM was handed to the writer (tests).
    #[cfg(test)]
    pub fn handoffs(&self) -> u64 {
        self.handoffs
    }

    fn hand_off(&mut self, core: &Core, now: Instant) {
        self.dirty = None;
        self.last_handoff = Some(now);
        self.handoffs += 1;
        let Some(bytes) = core.battery_save(unix_now()) else {
            return;
        };
        if self.writer.is_none() {
            write_reporting(&self.path, &bytes, &mut lock(&self.shared.slot));
            return;
        }
        let mut slot = lock(&self.shared.slot);
        slot.pending = Some(bytes); // latest wins: an older pending copy is dropped
        self.shared.work.notify_one();
    }
}

impl Drop for BatteryKeeper {
    /// Finishes a pending write (unsaved RAM needs `flush`, which has the core).
    fn drop(&mut self) {
        lock(&self.shared.slot).stop = true;
        self.shared.work.notify_one();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    // A poisoned lock only means a write panicked; the slot's data is still whole.
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

fn write_loop(shared: &Shared, path: &Path) {
    let mut slot = lock(&shared.slot);
    loop {
        if let Some(bytes) = slot.pending.take() {
            slot.writing = true;
            drop(slot);
            let result = write_atomic(path, &bytes);
            slot = lock(&shared.slot);
            report(path, result, &mut slot);
            slot.writing = false;
            shared.done.notify_all();
        } else if slot.stop {
            return;
        } else {
            slot = shared.work.wait(slot).unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn write_reporting(path: &Path, bytes: &[u8], slot: &mut Slot) {
    report(path, write_atomic(path, bytes), slot);
}

fn report(path: &Path, result: std::io::Result<()>, slot: &mut Slot) {
    match result {
        Ok(()) => {
            if slot.failing {
                log::info!("battery save written again ({})", path.display());
            }
            slot.failing = false;
            slot.written += 1;
        }
        Err(error) => {
            if !slot.failing {
                log::warn!(
                    "battery save not written: {} ({}); will retry when the game saves again",
                    crate::error::describe_io(&error),
                    path.display()
                );
            }
            slot.failing = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_core::{Options, Rom};

    /// MBC1+RAM+BATTERY, 8 KiB RAM, whose code writes a counter to $A000 forever.
    fn writing_core() -> Core {
        let mut rom = vec![0u8; 0x8000];
        rom[0x147] = 0x03;
        rom[0x149] = 0x02;
        let code = [
            0x3E, 0x0A, 0xEA, 0x00, 0x00, // LD A,$0A; LD ($0000),A: RAMG on
            0x3C, 0xEA, 0x00, 0xA0, // loop: INC A; LD ($A000),A
            0x18, 0xFA, // JR loop
        ];
        rom[0x100..0x100 + code.len()].copy_from_slice(&code);
        Core::new(Rom::from_bytes(rom).unwrap(), Options::default())
    }

    const FRAME: Duration = Duration::from_nanos(16_742_706);

    fn written(keeper: &BatteryKeeper) -> u64 {
        lock(&keeper.shared.slot).written
    }

    #[test]
    fn ram_written_every_frame_is_saved_once_a_second() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.sav");
        let mut core = writing_core();
        let mut keeper = BatteryKeeper::new(path.clone());
        let start = Instant::now();
        let mut now = start;
        for _ in 0..600 {
            // ten seconds of frames
            if core
                .run_frame()
                .contains(backspin_core::Events::BATTERY_DIRTY)
            {
                keeper.note_dirty(now);
            }
            keeper.poll(&core, now);
            now += FRAME;
        }
        let handoffs = keeper.handoffs();
        assert!(
            (9..=11).contains(&handoffs),
            "{handoffs} writes in 10 s of a game writing RAM every frame"
        );
        keeper.flush(&core);
        let on_disk = std::fs::read(&path).unwrap();
        assert_eq!(on_disk.len(), 8192);
        assert_eq!(
            on_disk[0],
            core.state().hw.cart_ram[0],
            "flush saved the latest RAM"
        );
        assert!(written(&keeper) >= 1);
    }

    #[test]
    fn nothing_is_written_until_the_game_writes_ram() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.sav");
        std::fs::write(&path, b"precious").unwrap();
        let mut core = writing_core();
        let mut keeper = BatteryKeeper::new(path.clone());
        let mut now = Instant::now();
        for _ in 0..120 {
            core.run_frame(); // RAM changes, but nobody reported it
            keeper.poll(&core, now);
            now += FRAME;
        }
        keeper.flush(&core);
        drop(keeper);
        assert_eq!(std::fs::read(&path).unwrap(), b"precious");
    }

    #[test]
    fn a_single_save_is_written_once_ram_is_quiet_and_flush_writes_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.sav");
        let mut core = writing_core();
        core.run_frame();
        let mut keeper = BatteryKeeper::new(path.clone());
        let start = Instant::now();
        keeper.note_dirty(start);
        keeper.poll(&core, start + QUIET / 2);
        assert_eq!(keeper.handoffs(), 0, "still inside the burst");
        keeper.poll(&core, start + QUIET);
        assert_eq!(keeper.handoffs(), 1, "quiet: written");
        // A second save soon after waits for the interval, but flush writes it at once.
        keeper.note_dirty(start + QUIET * 2);
        keeper.poll(&core, start + QUIET * 4);
        assert_eq!(keeper.handoffs(), 1, "at most one write a second");
        core.run_frame();
        keeper.flush(&core);
        assert_eq!(keeper.handoffs(), 2);
        // The writer may have skipped the first copy for the newer one (latest wins).
        assert!((1..=2).contains(&written(&keeper)));
        assert_eq!(
            std::fs::read(&path).unwrap()[0],
            core.state().hw.cart_ram[0]
        );
    }

    #[test]
    fn a_failing_write_is_a_warning_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-folder/game.sav");
        let mut core = writing_core();
        core.run_frame();
        let mut keeper = BatteryKeeper::new(path.clone());
        keeper.note_dirty(Instant::now());
        keeper.flush(&core);
        assert!(lock(&keeper.shared.slot).failing);
        assert!(!path.exists());
    }
}
