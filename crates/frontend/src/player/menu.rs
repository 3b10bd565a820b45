//! The in-window menu (Esc, a right click, or the gamepad's Mode button): which entries it
//! lists, which one is selected, and what choosing one asks for. It knows nothing of
//! windows or pixels: the app feeds it [`MenuKey`]s and carries out the [`Choice`]s, and
//! the overlay draws its [`lines`](Menu::lines) in the game's own pixels, so the GPU and the
//! software presenters show the same menu.

use super::browser::{Folder, Item};
use super::config::{Action, SLOTS};
use super::settings::{SETTINGS, Setting, Settings};
use std::path::{Path, PathBuf};

/// A menu entry, in the order shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Resume,
    /// The file browser.
    OpenGame,
    RecentGames,
    /// Load the slot shown beside it (Left/Right pick the slot).
    LoadSlot,
    /// Save to the slot shown beside it.
    SaveSlot,
    UndoLoad,
    Reset,
    Screenshot,
    Recording,
    /// Quit and start again in speedrun mode.
    Speedrun,
    Settings,
    Help,
    Quit,
}

const ENTRIES: &[Entry] = &[
    Entry::Resume,
    Entry::OpenGame,
    Entry::RecentGames,
    Entry::LoadSlot,
    Entry::SaveSlot,
    Entry::UndoLoad,
    Entry::Reset,
    Entry::Screenshot,
    Entry::Recording,
    Entry::Speedrun,
    Entry::Settings,
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
    /// Remove the selected recent game from the list (Delete, or the pad's SELECT).
    Remove,
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
    /// Show the recent games ([`Menu::show_recent`]).
    ShowRecent,
    /// Show the file browser ([`Menu::show_folder`]) where it was last used.
    Browse,
    /// Close the menu and play this ROM; `browsed`: picked in the file browser, whose
    /// folder is remembered.
    Open {
        path: PathBuf,
        browsed: bool,
    },
    /// Take this game off the recent list.
    Forget(PathBuf),
    /// Put the default bindings back.
    ResetBindings,
    /// Quit, then start again on the same game in speedrun mode.
    RestartInSpeedrun,
    /// Show the settings ([`Menu::show_settings`]).
    ShowSettings,
    /// The settings changed (this one): save and apply them.
    Set(Settings, Setting),
    Quit,
}

/// A recent game as the menu lists it.
#[derive(Clone, Debug)]
pub struct RecentRow {
    pub path: PathBuf,
    pub title: String,
    /// Model and when it was last played.
    pub detail: String,
    /// The file is no longer there.
    pub missing: bool,
    /// Where it stopped, RGBA, [`PICTURE_WIDTH`] x [`PICTURE_HEIGHT`].
    pub picture: Option<Vec<u8>>,
}

/// The recent list's picture: the game's picture scaled down by this factor.
pub const PICTURE_SCALE: usize = 4;
pub const PICTURE_WIDTH: usize = backspin_core::SCREEN_WIDTH / PICTURE_SCALE;
pub const PICTURE_HEIGHT: usize = backspin_core::SCREEN_HEIGHT / PICTURE_SCALE;

/// Rows of the recent list (the selected game's details and picture go below), and of
/// the file browser.
const RECENT_ROWS: usize = 10;
const BROWSE_ROWS: usize = 15;
/// Characters that fit on a menu line.
const COLUMNS: usize = 38;

/// What the menu shows.
#[derive(Clone, Debug)]
enum Page {
    Main,
    /// The bindings, one row per action, then "reset all"; `waiting`: the next key pressed
    /// is bound to the selected action.
    Keys {
        selected: usize,
        waiting: bool,
    },
    Recent {
        rows: Vec<RecentRow>,
        selected: usize,
    },
    Browse {
        folder: Folder,
        selected: usize,
        /// The last folder that could not be opened.
        error: Option<String>,
    },
    Settings {
        values: Settings,
        selected: usize,
    },
}

/// The menu's state while it is open.
#[derive(Clone, Debug)]
pub struct Menu {
    selected: usize,
    /// The slot the slot entries act on, 1..=SLOTS.
    slot: u8,
    page: Page,
}

/// Lines of help that fit under the menu's heading.
pub const HELP_ROWS: usize = 15;

impl Menu {
    pub fn new(slot: u8) -> Menu {
        Menu {
            selected: 0,
            slot: slot.clamp(1, SLOTS),
            page: Page::Main,
        }
    }

    /// The Keys page's row waiting for a key press to bind to its action.
    pub fn waiting_for_key(&self) -> Option<usize> {
        match self.page {
            Page::Keys {
                selected,
                waiting: true,
            } => Some(selected),
            _ => None,
        }
    }

    /// A key was bound (or the wait cancelled).
    pub fn stop_waiting(&mut self) {
        if let Page::Keys { waiting, .. } = &mut self.page {
            *waiting = false;
        }
    }

    /// Shows the settings.
    pub fn show_settings(&mut self, values: Settings) {
        self.page = Page::Settings {
            values,
            selected: 0,
        };
    }

    /// Shows the recent games.
    pub fn show_recent(&mut self, rows: Vec<RecentRow>) {
        self.page = Page::Recent { rows, selected: 0 };
    }

    /// Shows the file browser on `dir` (on an error, the page says so and stays put).
    pub fn show_folder(&mut self, dir: &Path) {
        match (Folder::read(dir), &mut self.page) {
            (Ok(folder), _) => {
                self.page = Page::Browse {
                    folder,
                    selected: 0,
                    error: None,
                }
            }
            (Err(message), Page::Browse { error, .. }) => *error = Some(message),
            (Err(message), _) => {
                log::warn!("{message}");
                self.page = Page::Browse {
                    folder: Folder {
                        dir: dir.to_path_buf(),
                        items: vec![Item::Parent],
                    },
                    selected: 0,
                    error: Some(message),
                };
            }
        }
    }

    /// The selected recent game's picture, while the recent list is shown.
    pub fn picture(&self) -> Option<&[u8]> {
        match &self.page {
            Page::Recent { rows, selected } => rows.get(*selected)?.picture.as_deref(),
            _ => None,
        }
    }

    pub fn selected(&self) -> Entry {
        ENTRIES[self.selected]
    }

    pub fn slot(&self) -> u8 {
        self.slot
    }

    /// Whether the first line is the page's heading (every page but the entries).
    pub fn has_heading(&self) -> bool {
        !matches!(self.page, Page::Main)
    }

    /// Whether the selected entry acts on a slot (the slot thumbnails are shown then).
    pub fn on_a_slot(&self) -> bool {
        matches!(self.page, Page::Main)
            && matches!(self.selected(), Entry::LoadSlot | Entry::SaveSlot)
    }

    #[cfg(test)]
    fn showing_help(&self) -> bool {
        matches!(self.page, Page::Keys { .. })
    }

    /// Moves the selection or carries out the selected entry. `help_len`: lines of help.
    pub fn key(&mut self, key: MenuKey, help_len: usize) -> Choice {
        match &mut self.page {
            Page::Main => {}
            Page::Keys { selected, waiting } => {
                match key {
                    MenuKey::Back if *waiting => *waiting = false,
                    _ if *waiting => {}
                    MenuKey::Back => self.page = Page::Main,
                    MenuKey::Choose if *selected < help_len => *waiting = true,
                    MenuKey::Choose => return Choice::ResetBindings,
                    other => move_in_list(selected, help_len + 1, HELP_ROWS, other),
                }
                return Choice::Stay;
            }
            Page::Recent { rows, selected } => {
                match key {
                    MenuKey::Back => self.page = Page::Main,
                    MenuKey::Choose => {
                        if let Some(row) = rows.get(*selected).filter(|row| !row.missing) {
                            return Choice::Open {
                                path: row.path.clone(),
                                browsed: false,
                            };
                        }
                    }
                    MenuKey::Remove if *selected < rows.len() => {
                        let row = rows.remove(*selected);
                        *selected = (*selected).min(rows.len().saturating_sub(1));
                        return Choice::Forget(row.path);
                    }
                    other => move_in_list(selected, rows.len(), RECENT_ROWS, other),
                }
                return Choice::Stay;
            }
            Page::Settings { values, selected } => {
                let setting = SETTINGS[*selected];
                match key {
                    MenuKey::Back => self.page = Page::Main,
                    MenuKey::Up | MenuKey::Down => {
                        move_in_list(selected, SETTINGS.len(), SETTINGS.len(), key)
                    }
                    MenuKey::Left | MenuKey::Right | MenuKey::Choose => {
                        values.step(setting, key != MenuKey::Left);
                        return Choice::Set(*values, setting);
                    }
                    MenuKey::Remove => {}
                }
                return Choice::Stay;
            }
            Page::Browse {
                folder, selected, ..
            } => {
                match key {
                    MenuKey::Back => self.page = Page::Main,
                    MenuKey::Choose => {
                        let Some(item) = folder.items.get(*selected).cloned() else {
                            return Choice::Stay;
                        };
                        let target = folder.target(&item);
                        match item {
                            Item::Rom(_) => {
                                return Choice::Open {
                                    path: target,
                                    browsed: true,
                                };
                            }
                            Item::Parent | Item::Folder(_) => self.show_folder(&target),
                        }
                    }
                    other => move_in_list(selected, folder.items.len(), BROWSE_ROWS, other),
                }
                return Choice::Stay;
            }
        }
        match key {
            MenuKey::Up => self.selected = (self.selected + ENTRIES.len() - 1) % ENTRIES.len(),
            MenuKey::Down => self.selected = (self.selected + 1) % ENTRIES.len(),
            MenuKey::Left if self.on_a_slot() => self.slot = (self.slot + SLOTS - 2) % SLOTS + 1,
            MenuKey::Right if self.on_a_slot() => self.slot = self.slot % SLOTS + 1,
            MenuKey::Left | MenuKey::Right | MenuKey::Remove => {}
            MenuKey::Back => return Choice::Close,
            MenuKey::Choose => return self.choose(),
        }
        Choice::Stay
    }

    /// Selects entry `index` (a click on its line) and chooses it.
    pub fn click(&mut self, index: usize, help_len: usize) -> Choice {
        let rows = match &mut self.page {
            Page::Main => None,
            Page::Keys { selected, .. } => Some((selected, help_len + 1, HELP_ROWS)),
            Page::Settings { selected, .. } => Some((selected, SETTINGS.len(), SETTINGS.len())),
            Page::Recent { rows, selected } => Some((selected, rows.len(), RECENT_ROWS)),
            Page::Browse {
                folder, selected, ..
            } => Some((selected, folder.items.len(), BROWSE_ROWS)),
        };
        if let Some((selected, len, shown)) = rows {
            // Line 0 is the heading; the rows follow.
            let row = index
                .checked_sub(1)
                .filter(|row| *row < shown)
                .map(|row| row + first_shown(*selected, shown))
                .filter(|row| *row < len);
            return match row {
                Some(row) => {
                    *selected = row;
                    self.key(MenuKey::Choose, help_len)
                }
                None => self.key(MenuKey::Back, help_len),
            };
        }
        if index >= ENTRIES.len() {
            return self.key(MenuKey::Back, help_len);
        }
        self.selected = index;
        self.choose()
    }

    fn choose(&mut self) -> Choice {
        match self.selected() {
            Entry::Resume => Choice::Close,
            Entry::OpenGame => Choice::Browse,
            Entry::RecentGames => Choice::ShowRecent,
            Entry::LoadSlot => Choice::CloseAndAct(Action::LoadSlot(self.slot)),
            Entry::SaveSlot => Choice::Act(Action::SaveSlot(self.slot)),
            Entry::UndoLoad => Choice::CloseAndAct(Action::UndoLoad),
            Entry::Reset => Choice::CloseAndAct(Action::Reset),
            Entry::Screenshot => Choice::Act(Action::Screenshot),
            Entry::Recording => Choice::CloseAndAct(Action::RecordMovie),
            Entry::Speedrun => Choice::RestartInSpeedrun,
            Entry::Settings => Choice::ShowSettings,
            Entry::Help => {
                self.page = Page::Keys {
                    selected: 0,
                    waiting: false,
                };
                Choice::Stay
            }
            Entry::Quit => Choice::Quit,
        }
    }

    /// The text lines to draw and the index of the highlighted one. `recording`: a movie is
    /// being recorded; `help`: the current bindings, one line each.
    pub fn lines(&self, recording: bool, help: &[String]) -> (Vec<String>, Option<usize>) {
        let (mut lines, highlighted) = match &self.page {
            Page::Main => self.main_lines(recording),
            Page::Keys { selected, waiting } => {
                let heading = match waiting {
                    true => "PRESS A KEY OR BUTTON - ESC CANCELS",
                    false => "KEYS - ENTER REBINDS, ESC BACK",
                };
                let mut lines = vec![heading.to_string()];
                let first = first_shown(*selected, HELP_ROWS);
                lines.extend(
                    help.iter()
                        .cloned()
                        .chain(["RESET ALL TO DEFAULTS".to_string()])
                        .skip(first)
                        .take(HELP_ROWS),
                );
                (lines, Some(1 + selected - first))
            }
            Page::Recent { rows, selected } => {
                let mut lines = vec!["RECENT GAMES - DEL REMOVES".to_string()];
                let first = first_shown(*selected, RECENT_ROWS);
                lines.extend(rows.iter().skip(first).take(RECENT_ROWS).map(
                    |row| match row.missing {
                        true => format!("{} - MISSING", row.title),
                        false => row.title.clone(),
                    },
                ));
                if rows.is_empty() {
                    lines.push("NO GAMES YET".to_string());
                }
                if let Some(row) = rows.get(*selected) {
                    lines.resize(1 + RECENT_ROWS + 1, String::new());
                    lines.push(row.detail.clone());
                    if row.missing {
                        lines.push("FILE MISSING".to_string());
                    }
                }
                let highlighted = (!rows.is_empty()).then(|| 1 + selected - first);
                (lines, highlighted)
            }
            Page::Settings { values, selected } => {
                let mut lines = vec!["SETTINGS - LEFT/RIGHT CHANGE".to_string()];
                lines.extend(SETTINGS.iter().map(|setting| values.label(*setting)));
                (lines, Some(1 + selected))
            }
            Page::Browse {
                folder,
                selected,
                error,
            } => {
                let heading = match error {
                    Some(error) => error.clone(),
                    None => folder.dir.display().to_string(),
                };
                let mut lines = vec![keep_end(&heading)];
                let first = first_shown(*selected, BROWSE_ROWS);
                lines.extend(
                    folder
                        .items
                        .iter()
                        .skip(first)
                        .take(BROWSE_ROWS)
                        .map(Item::label),
                );
                (lines, Some(1 + selected - first))
            }
        };
        for line in &mut lines {
            if line.chars().count() > COLUMNS {
                *line = line.chars().take(COLUMNS).collect();
            }
        }
        (lines, highlighted)
    }

    fn main_lines(&self, recording: bool) -> (Vec<String>, Option<usize>) {
        let lines = ENTRIES
            .iter()
            .map(|entry| match entry {
                Entry::Resume => "RESUME".to_string(),
                Entry::OpenGame => "OPEN GAME".to_string(),
                Entry::RecentGames => "RECENT GAMES".to_string(),
                Entry::LoadSlot => format!("LOAD SLOT < {} >", self.slot),
                Entry::SaveSlot => format!("SAVE SLOT < {} >", self.slot),
                Entry::UndoLoad => "UNDO LOAD".to_string(),
                Entry::Reset => "RESET".to_string(),
                Entry::Screenshot => "SCREENSHOT".to_string(),
                Entry::Recording if recording => "STOP RECORDING".to_string(),
                Entry::Recording => "START RECORDING".to_string(),
                Entry::Speedrun => "RESTART IN SPEEDRUN MODE".to_string(),
                Entry::Settings => "SETTINGS".to_string(),
                Entry::Help => "KEYS".to_string(),
                Entry::Quit => "QUIT".to_string(),
            })
            .collect();
        (lines, Some(self.selected))
    }
}

/// Up/Down move by one, Left/Right by a page, within `len` rows shown `shown` at a time.
fn move_in_list(selected: &mut usize, len: usize, shown: usize, key: MenuKey) {
    let last = len.saturating_sub(1);
    *selected = match key {
        MenuKey::Up => selected.saturating_sub(1),
        MenuKey::Down => (*selected + 1).min(last),
        MenuKey::Left => selected.saturating_sub(shown),
        MenuKey::Right => (*selected + shown).min(last),
        _ => *selected,
    };
}

/// The first row shown so that `selected` is on screen.
fn first_shown(selected: usize, shown: usize) -> usize {
    selected.saturating_sub(shown - 1)
}

/// `text`, or its end after "..." when it is too long for a line (a folder's own name is
/// at the end of its path).
fn keep_end(text: &str) -> String {
    let count = text.chars().count();
    if count <= COLUMNS {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - (COLUMNS - 3)).collect();
    format!("...{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize, missing: bool) -> RecentRow {
        RecentRow {
            path: PathBuf::from(format!("/roms/{n}.gb")),
            title: format!("GAME {n}"),
            detail: "DMG - JUST NOW".into(),
            missing,
            picture: None,
        }
    }

    #[test]
    fn recent_games_scroll_open_and_remove() {
        let mut menu = Menu::new(1);
        assert_eq!(menu.key(MenuKey::Down, 0), Choice::Stay);
        assert_eq!(menu.key(MenuKey::Down, 0), Choice::Stay);
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::ShowRecent);
        menu.show_recent((0..20).map(|n| row(n, n == 1)).collect());
        menu.key(MenuKey::Down, 0);
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::Stay, "a missing file");
        let (lines, highlighted) = menu.lines(false, &[]);
        assert_eq!(lines[2], "GAME 1 - MISSING");
        assert_eq!(highlighted, Some(2));
        assert!(lines.contains(&"FILE MISSING".to_string()));
        assert_eq!(
            menu.key(MenuKey::Remove, 0),
            Choice::Forget(PathBuf::from("/roms/1.gb"))
        );
        menu.key(MenuKey::Right, 0);
        let (lines, highlighted) = menu.lines(false, &[]);
        assert_eq!(
            highlighted,
            Some(RECENT_ROWS),
            "the selection stays on screen"
        );
        assert_eq!(lines[RECENT_ROWS], "GAME 12");
        assert_eq!(
            menu.click(RECENT_ROWS, 0),
            Choice::Open {
                path: PathBuf::from("/roms/12.gb"),
                browsed: false
            }
        );
        assert_eq!(menu.key(MenuKey::Back, 0), Choice::Stay);
        assert_eq!(menu.selected(), Entry::RecentGames);
    }

    #[test]
    fn the_browser_walks_folders_and_opens_a_rom() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("roms")).unwrap();
        std::fs::write(dir.path().join("roms/game.gb"), b"").unwrap();
        let mut menu = Menu::new(1);
        menu.key(MenuKey::Down, 0);
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::Browse);
        menu.show_folder(dir.path());
        menu.key(MenuKey::Down, 0);
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::Stay);
        menu.key(MenuKey::Down, 0);
        let opened = menu.key(MenuKey::Choose, 0);
        assert_eq!(
            opened,
            Choice::Open {
                path: std::fs::canonicalize(dir.path())
                    .unwrap()
                    .join("roms/game.gb"),
                browsed: true
            }
        );
        menu.key(MenuKey::Up, 0);
        menu.key(MenuKey::Choose, 0);
        let (lines, _) = menu.lines(false, &[]);
        assert_eq!(lines[2], "roms/", "back in the first folder");
    }

    #[test]
    fn keys_move_the_selection_and_choose() {
        let mut menu = Menu::new(3);
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::Close);
        assert_eq!(menu.key(MenuKey::Up, 0), Choice::Stay);
        assert_eq!(menu.selected(), Entry::Quit, "up from the top wraps");
        assert_eq!(menu.key(MenuKey::Choose, 0), Choice::Quit);
        for _ in 0..4 {
            menu.key(MenuKey::Down, 0);
        }
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
    fn keys_scroll_wait_for_a_key_and_reset() {
        let help: Vec<String> = (0..40).map(|n| format!("LINE {n}")).collect();
        let mut menu = Menu::new(1);
        let help_index = ENTRIES.iter().position(|e| *e == Entry::Help).unwrap();
        assert_eq!(menu.click(help_index, help.len()), Choice::Stay);
        assert!(menu.showing_help());
        assert_eq!(menu.key(MenuKey::Choose, help.len()), Choice::Stay);
        assert_eq!(menu.waiting_for_key(), Some(0));
        assert_eq!(menu.key(MenuKey::Back, help.len()), Choice::Stay);
        assert_eq!(menu.waiting_for_key(), None, "Esc cancels the wait");
        assert!(menu.showing_help());
        for _ in 0..4 {
            menu.key(MenuKey::Right, help.len());
        }
        let (lines, highlighted) = menu.lines(false, &help);
        assert_eq!(highlighted, Some(HELP_ROWS));
        assert_eq!(lines.len(), 1 + HELP_ROWS);
        assert_eq!(lines.last().unwrap(), "RESET ALL TO DEFAULTS");
        assert_eq!(menu.key(MenuKey::Choose, help.len()), Choice::ResetBindings);
        assert_eq!(menu.key(MenuKey::Back, help.len()), Choice::Stay);
        assert!(!menu.showing_help());
        let (lines, highlighted) = menu.lines(true, &help);
        assert_eq!(highlighted, Some(help_index));
        assert!(lines.contains(&"STOP RECORDING".to_string()));
    }
}
