//! The slot hotkeys on the emulation thread: save, load (a timeline event), undo either,
//! and the resume point written on exit. The files themselves are `player/slots.rs`.

use super::Emu;
use crate::player::slots;

impl Emu {
    /// Whether a slot load may go ahead (not while a movie is recorded).
    fn loads_allowed(&mut self) -> bool {
        if self.recording.is_some() {
            self.notice("Loading a state is locked while recording a movie".into());
            return false;
        }
        true
    }

    pub(super) fn save_slot(&mut self, slot: u8) {
        let Some(slots) = &self.slots else {
            return self.notice("no data directory for save states".into());
        };
        let frame = self.timeline.frame();
        match slots.save(slot, self.timeline.core(), frame) {
            Ok(previous) => {
                self.undo_save = Some((slot, previous));
                self.notice(format!("Slot {slot} saved"));
            }
            Err(error) => self.notice(format!("Slot {slot} not saved: {error}")),
        }
    }

    /// Loads `slot` as a timeline event. Unsaved battery RAM goes out first, and the load
    /// itself never marks it dirty: the `.sav` changes again only once the game writes
    /// cartridge RAM (see `battery/keeper.rs`), so an old state never clobbers a newer save.
    pub(super) fn load_slot(&mut self, slot: u8) {
        if !self.loads_allowed() {
            return;
        }
        let Some(slots) = &self.slots else {
            return self.notice("no data directory for save states".into());
        };
        match slots.load(slot, self.timeline.core()) {
            Ok(loaded) => {
                self.save_before_seek();
                let before = Box::new(*self.timeline.core().state());
                self.undo_load = Some((self.timeline.frame(), before));
                self.timeline.load_state(&loaded.state);
                let age = slots::describe_age(loaded.saved_at, crate::battery::unix_now());
                self.notice(format!("Slot {slot} loaded - saved {age}"));
            }
            Err(error) => self.notice(format!("Slot {slot}: {error}")),
        }
    }

    /// Back to the moment before the last load. The load is a timeline event, so this is a
    /// seek to the frame before it: the loaded game stays as the kept future (redo reaches
    /// it again) until the player plays on, which forks it away. If that frame has left
    /// the history (or rewind is off), the state from before the load is loaded instead, as
    /// a new event.
    pub(super) fn undo_load(&mut self) {
        if !self.loads_allowed() {
            return;
        }
        let Some((frame, before)) = self.undo_load.take() else {
            return self.notice("No load to undo".into());
        };
        self.save_before_seek();
        let span = self.timeline.span();
        let seekable =
            self.timeline.rewind_enabled() && (span.oldest..=span.newest).contains(&frame);
        if !(seekable && self.timeline.seek(frame).is_ok()) {
            self.timeline.load_state(&before);
        }
        self.notice("Load undone".into());
        self.send_frame(true);
    }

    pub(super) fn undo_save(&mut self) {
        let (Some(slots), Some((slot, previous))) = (&self.slots, self.undo_save.take()) else {
            return self.notice("No save to undo".into());
        };
        match slots.restore(slot, previous.as_deref()) {
            Ok(()) if previous.is_some() => self.notice(format!("Slot {slot}: old save back")),
            Ok(()) => self.notice(format!("Slot {slot} emptied again")),
            Err(error) => self.notice(format!("Undo save failed: {error}")),
        }
    }

    /// Writes the resume point: the state now and the rewind history, for the next launch
    /// of this ROM. A failure is a warning (the battery save is already written).
    pub(super) fn save_resume(&mut self) {
        let Some(slots) = &self.slots else {
            return;
        };
        if let Err(error) = slots::write_resume(slots, &self.timeline) {
            log::warn!("resume point not saved: {error}");
        }
    }
}
