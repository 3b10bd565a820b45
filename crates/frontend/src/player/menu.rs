//! The in-window menu (Esc, a right click, or the gamepad's Mode button): which entries it
//! lists, which one is selected, and what choosing one asks for. It knows nothing of
//! windows or pixels: the app feeds it [`MenuKey`]s and carries out the [`Choice`]s, and
//! the overlay draws its [`lines`](Menu::lines) in the game's own pixels, so the GPU and the
//! software presenters show the same menu.

use super::config::{Action, SLOTS};

/// A menu entry, in the order shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Resume,
    /// Load the slot shown beside it (Left/Right pick the slot).
    LoadSlot,
    /// Save to the slot shown beside it.
    SaveSlot,
    UndoLoad,
    Reset,
    Screenshot,
    Recording,
    Help,
    Quit,
}

const ENTRIES: &[Entry] = &[
    Entry::Resume,
    Entry::LoadSlot,
    Entry::SaveSlot,
    Entry::UndoLoad,
    Entry::Reset,
    Entry::Screenshot,
    Entry::Recording,
    Entry::Help,
    Entry::Quit,
];

/// What a key, pad button or click means inside the menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuKey {
    Up,
    Down,
    Left,
    Right,
    Choose,
    Back,
}

/// What the app does after a menu key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Nothing beyond redrawing the menu.
    Stay,
    /// Close the menu and resume.
    Close,
    /// Carry out this action and keep the menu open.
    Act(Action),
    /// Close the menu, then carry out this action.
    CloseAndAct(Action),
    Quit,
}

/// The menu's state while it is open.
#[derive(Clone, Debug)]
pub struct Menu {
    selected: usize,
    /// The slot the slot entries act on, 1..=SLOTS.
    slot: u8,
    /// The help page is shown instead of the entries, scrolled by this many lines.
    help_scroll: Option<usize>,
}

/// Lines of help that fit under the menu's heading.
pub const HELP_ROWS: usize = 15;

impl Menu {
    pub fn new(slot: u8) -> Menu {
        Menu {
            selected: 0,
            slot: slot.clamp(1, SLOTS),
            help_scroll: None,
        }
    }

    pub fn selected(&self) -> Entry {
        ENTRIES[self.selected]
    }

    pub fn slot(&self) -> u8 {
        self.slot
    }

    /// Whether the selected entry acts on a slot (the slot thumbnails are shown then).
    pub fn on_a_slot(&self) -> bool {
        self.help_scroll.is_none() && matches!(self.selected(), Entry::LoadSlot | Entry::SaveSlot)
    }

    #[cfg(test)]
    fn showing_help(&self) -> bool {
        self.help_scroll.is_some()
    }

    /// Moves the selection or carries out the selected entry. `help_len`: lines of help.
    pub fn key(&mut self, key: MenuKey, help_len: usize) -> Choice {
        if let Some(scroll) = &mut self.help_scroll {
            let last = help_len.saturating_sub(HELP_ROWS);
            match key {
                MenuKey::Up => *scroll = scroll.saturating_sub(1),
                MenuKey::Down => *scroll = (*scroll + 1).min(last),
                MenuKey::Left => *scroll = scroll.saturating_sub(HELP_ROWS),
                MenuKey::Right => *scroll = (*scroll + HELP_ROWS).min(last),
                MenuKey::Choose | MenuKey::Back => self.help_scroll = None,
            }
            return Choice::Stay;
        }
        match key {
            MenuKey::Up => self.selected = (self.selected + ENTRIES.len() - 1) % ENTRIES.len(),
            MenuKey::Down => self.selected = (self.selected + 1) % ENTRIES.len(),
            MenuKey::Left if self.on_a_slot() => self.slot = (self.slot + SLOTS - 2) % SLOTS + 1,
            MenuKey::Right if self.on_a_slot() => self.slot = self.slot % SLOTS + 1,
            MenuKey::Left | MenuKey::Right => {}
            MenuKey::Back => return Choice::Close,
            MenuKey::Choose => return self.choose(),
        }
        Choice::Stay
    }

    /// Selects entry `index` (a click on its line) and chooses it.
    pub fn click(&mut self, index: usize, help_len: usize) -> Choice {
        if self.help_scroll.is_some() || index >= ENTRIES.len() {
            return self.key(MenuKey::Back, help_len);
        }
        self.selected = index;
        self.choose()
    }

    fn choose(&mut self) -> Choice {
        match self.selected() {
            Entry::Resume => Choice::Close,
            Entry::LoadSlot => Choice::CloseAndAct(Action::LoadSlot(self.slot)),
            Entry::SaveSlot => Choice::Act(Action::SaveSlot(self.slot)),
            Entry::UndoLoad => Choice::CloseAndAct(Action::UndoLoad),
            Entry::Reset => Choice::CloseAndAct(Action::Reset),
            Entry::Screenshot => Choice::Act(Action::Screenshot),
            Entry::Recording => Choice::CloseAndAct(Action::RecordMovie),
            Entry::Help => {
                self.help_scroll = Some(0);
                Choice::Stay
            }
            Entry::Quit => Choice::Quit,
        }
    }

    /// The text lines to draw and the index of the highlighted one. `recording`: a movie is
    /// being recorded; `help`: the current bindings, one line each.
    pub fn lines(&self, recording: bool, help: &[String]) -> (Vec<String>, Option<usize>) {
        if let Some(scroll) = self.help_scroll {
            let mut lines = vec!["KEYS - UP/DOWN SCROLL, ESC BACK".to_string()];
            lines.extend(help.iter().skip(scroll).take(HELP_ROWS).cloned());
            return (lines, None);
        }
        let lines = ENTRIES
            .iter()
            .map(|entry| match entry {
                Entry::Resume => "RESUME".to_string(),
                Entry::LoadSlot => format!("LOAD SLOT < {} >", self.slot),
                Entry::SaveSlot => format!("SAVE SLOT < {} >", self.slot),
                Entry::UndoLoad => "UNDO LOAD".to_string(),
                Entry::Reset => "RESET".to_string(),
                Entry::Screenshot => "SCREENSHOT".to_string(),
                Entry::Recording if recording => "STOP RECORDING".to_string(),
                Entry::Recording => "START RECORDING".to_string(),
                Entry::Help => "KEYS".to_string(),
                Entry::Quit => "QUIT".to_string(),
            })
            .collect();
        (lines, Some(self.selected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_move_the_selection_and_choose() {
        let mut menu = Menu::new(3);
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::Close);
        assert_eq!(menu.key(MenuKey::Up, 0), Choice::Stay);
        assert_eq!(menu.selected(), Entry::Quit, "up from the top wraps");
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::Quit);
        menu.key(MenuKey::Down, 0);
        menu.key(MenuKey::Down, 0);
        assert_eq!(menu.selected(), Entry::LoadSlot);
        assert!(menu.on_a_slot());
        menu.key(MenuKey::Left, 0);
        menu.key(MenuKey::Left, 0);
        menu.key(MenuKey::Left, 0);
        assert_eq!(menu.slot(), SLOTS, "left from slot 1 wraps to the last");
        menu.key(MenuKey::Right, 0);
        assert_eq!(
            menu.key(MenuKey::Choose, 0),
            Choice::CloseAndAct(Action::LoadSlot(1))
        );
        menu.key(MenuKey::Down, 0);
        assert_eq!(
            menu.key(MenuKey::Choose, 0),
            Choice::Act(Action::SaveSlot(1))
        );
        assert_eq!(menu.key(MenuKey::Back, 0), Choice::Close);
    }

    #[test]
    fn help_scrolls_and_goes_back() {
        let help: Vec<String> = (0..40).map(|n| format!("LINE {n}")).collect();
        let mut menu = Menu::new(1);
        let help_index = ENTRIES.iter().position(|e| *e == Entry::Help).unwrap();
        assert_eq!(menu.click(help_index, help.len()), Choice::Stay);
        assert!(menu.showing_help());
        menu.key(MenuKey::Right, help.len());
        menu.key(MenuKey::Right, help.len());
        menu.key(MenuKey::Down, help.len());
        let (lines, highlighted) = menu.lines(false, &help);
        assert_eq!(highlighted, None);
        assert_eq!(lines.len(), 1 + HELP_ROWS);
        assert_eq!(
            lines.last().unwrap(),
            "LINE 39",
            "scrolling stops at the end"
        );
        assert_eq!(menu.key(MenuKey::Back, help.len()), Choice::Stay);
        assert!(!menu.showing_help());
        let (lines, highlighted) = menu.lines(true, &help);
        assert_eq!(highlighted, Some(help_index));
        assert!(lines.contains(&"STOP RECORDING".to_string()));
    }
}
