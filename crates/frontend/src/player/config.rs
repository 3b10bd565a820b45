//! Key and gamepad bindings: defaults, the TOML config file, and its validation.
//!
//! The file lives in the platform config directory (`directories`), e.g.
//! `~/.config/backspin/config.toml` on Linux, and is written with the defaults on first run.
//! A file that does not parse or names unknown keys is reported line by line and the defaults
//! are used for that run; the file is never overwritten once it exists, except once to take
//! Escape (and the pad's Mode) out of `pause` in files written before the menu existed.

pub(crate) mod rewrite;

use rewrite::migrate_menu_keys;
pub use rewrite::{rebind_button, rebind_key, reset_bindings};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use winit::keyboard::KeyCode;

/// Everything a key or gamepad button can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// A Game Boy button (a `Buttons` bit).
    Joypad(u8),
    /// Held: play backwards, one frame per displayed frame.
    Rewind,
    /// Held: replay the kept future after a rewind.
    Forward,
    Pause,
    FrameAdvance,
    FrameBack,
    /// Held: run as fast as possible.
    FastForward,
    Screenshot,
    Reset,
    Fullscreen,
    InputDisplay,
    /// Load save-state slot 1..=10 (a timeline event: rewinding goes back past it).
    LoadSlot(u8),
    /// Save the game to slot 1..=10.
    SaveSlot(u8),
    /// Go back to the game as it was just before the last slot load.
    UndoLoad,
    /// Put back the slot file that the last slot save replaced.
    UndoSave,
    /// Start or stop recording a movie.
    RecordMovie,
    /// Open the menu (which pauses the game while it is open).
    Menu,
}

/// Save-state slots per ROM.
pub const SLOTS: u8 = 10;

/// Action names as written in the config file, in the order `--help` shows them.
pub const ACTIONS: &[(&str, Action, &str)] = &[
    ("up", Action::Joypad(backspin_core::Buttons::UP), "d-pad up"),
    (
        "down",
        Action::Joypad(backspin_core::Buttons::DOWN),
        "d-pad down",
    ),
    (
        "left",
        Action::Joypad(backspin_core::Buttons::LEFT),
        "d-pad left",
    ),
    (
        "right",
        Action::Joypad(backspin_core::Buttons::RIGHT),
        "d-pad right",
    ),
    ("a", Action::Joypad(backspin_core::Buttons::A), "A"),
    ("b", Action::Joypad(backspin_core::Buttons::B), "B"),
    (
        "start",
        Action::Joypad(backspin_core::Buttons::START),
        "START",
    ),
    (
        "select",
        Action::Joypad(backspin_core::Buttons::SELECT),
        "SELECT",
    ),
    ("rewind", Action::Rewind, "hold to rewind"),
    (
        "forward",
        Action::Forward,
        "hold to replay the kept future (redo)",
    ),
    (
        "menu",
        Action::Menu,
        "open the menu (pauses; Esc closes it)",
    ),
    ("pause", Action::Pause, "pause / resume"),
    (
        "frame_advance",
        Action::FrameAdvance,
        "one frame forward while paused",
    ),
    (
        "frame_back",
        Action::FrameBack,
        "one frame back while paused",
    ),
    (
        "fast_forward",
        Action::FastForward,
        "hold to fast-forward (muted)",
    ),
    ("screenshot", Action::Screenshot, "save a PNG screenshot"),
    ("reset", Action::Reset, "reset (rewindable)"),
    ("fullscreen", Action::Fullscreen, "toggle fullscreen"),
    (
        "input_display",
        Action::InputDisplay,
        "toggle the on-screen input display",
    ),
    (
        "undo_load",
        Action::UndoLoad,
        "undo the last slot load (back to before it)",
    ),
    (
        "undo_save",
        Action::UndoSave,
        "undo the last slot save (the slot's old file back)",
    ),
    (
        "record_movie",
        Action::RecordMovie,
        "start / stop recording a movie (into the data directory)",
    ),
];

/// Slot actions (`load_slot_N`, `save_slot_N`) are named by number, not listed in
/// [`ACTIONS`]; these are their names for slot `n`.
fn slot_action_name(action: Action) -> Option<String> {
    match action {
        Action::LoadSlot(n) => Some(format!("load_slot_{n}")),
        Action::SaveSlot(n) => Some(format!("save_slot_{n}")),
        _ => None,
    }
}

const DEFAULT_KEYS: &[(&str, &[&str])] = &[
    ("up", &["ArrowUp"]),
    ("down", &["ArrowDown"]),
    ("left", &["ArrowLeft"]),
    ("right", &["ArrowRight"]),
    ("a", &["KeyX"]),
    ("b", &["KeyZ"]),
    ("start", &["Enter"]),
    // Shift is also the save-slot modifier (Shift+F1..F10): right Shift only, so the left
    // one saves without pressing SELECT in the game.
    ("select", &["ShiftRight"]),
    ("rewind", &["Backspace"]),
    ("forward", &["Equal"]),
    ("menu", &["Escape"]),
    ("pause", &["KeyP"]),
    ("frame_advance", &["Period"]),
    ("frame_back", &["Comma"]),
    ("fast_forward", &["Tab"]),
    ("screenshot", &["F12"]),
    ("reset", &["KeyR"]),
    ("fullscreen", &["F11"]),
    ("input_display", &["KeyI"]),
    ("load_slot_1", &["F1"]),
    ("load_slot_2", &["F2"]),
    ("load_slot_3", &["F3"]),
    ("load_slot_4", &["F4"]),
    ("load_slot_5", &["F5"]),
    ("load_slot_6", &["F6"]),
    ("load_slot_7", &["F7"]),
    ("load_slot_8", &["F8"]),
    ("load_slot_9", &["F9"]),
    ("load_slot_10", &["F10"]),
    ("save_slot_1", &["Shift+F1"]),
    ("save_slot_2", &["Shift+F2"]),
    ("save_slot_3", &["Shift+F3"]),
    ("save_slot_4", &["Shift+F4"]),
    ("save_slot_5", &["Shift+F5"]),
    ("save_slot_6", &["Shift+F6"]),
    ("save_slot_7", &["Shift+F7"]),
    ("save_slot_8", &["Shift+F8"]),
    ("save_slot_9", &["Shift+F9"]),
    ("save_slot_10", &["Shift+F10"]),
    ("undo_load", &["KeyU"]),
    ("undo_save", &["Shift+KeyU"]),
    ("record_movie", &["KeyM"]),
];

const DEFAULT_PAD: &[(&str, &[&str])] = &[
    ("up", &["DPadUp"]),
    ("down", &["DPadDown"]),
    ("left", &["DPadLeft"]),
    ("right", &["DPadRight"]),
    ("a", &["East"]),
    ("b", &["South"]),
    ("start", &["Start"]),
    ("select", &["Select"]),
    ("rewind", &["LeftTrigger"]),
    ("forward", &["RightTrigger"]),
    ("menu", &["Mode"]),
    ("fast_forward", &["RightTrigger2"]),
];

/// Key names accepted in the file: winit's `KeyCode` names.
const KEY_NAMES: &[(&str, KeyCode)] = {
    use KeyCode::*;
    &[
        ("KeyA", KeyA),
        ("KeyB", KeyB),
        ("KeyC", KeyC),
        ("KeyD", KeyD),
        ("KeyE", KeyE),
        ("KeyF", KeyF),
        ("KeyG", KeyG),
        ("KeyH", KeyH),
        ("KeyI", KeyI),
        ("KeyJ", KeyJ),
        ("KeyK", KeyK),
        ("KeyL", KeyL),
        ("KeyM", KeyM),
        ("KeyN", KeyN),
        ("KeyO", KeyO),
        ("KeyP", KeyP),
        ("KeyQ", KeyQ),
        ("KeyR", KeyR),
        ("KeyS", KeyS),
        ("KeyT", KeyT),
        ("KeyU", KeyU),
        ("KeyV", KeyV),
        ("KeyW", KeyW),
        ("KeyX", KeyX),
        ("KeyY", KeyY),
        ("KeyZ", KeyZ),
        ("Digit0", Digit0),
        ("Digit1", Digit1),
        ("Digit2", Digit2),
        ("Digit3", Digit3),
        ("Digit4", Digit4),
        ("Digit5", Digit5),
        ("Digit6", Digit6),
        ("Digit7", Digit7),
        ("Digit8", Digit8),
        ("Digit9", Digit9),
        ("F1", F1),
        ("F2", F2),
        ("F3", F3),
        ("F4", F4),
        ("F5", F5),
        ("F6", F6),
        ("F7", F7),
        ("F8", F8),
        ("F9", F9),
        ("F10", F10),
        ("F11", F11),
        ("F12", F12),
        ("ArrowUp", ArrowUp),
        ("ArrowDown", ArrowDown),
        ("ArrowLeft", ArrowLeft),
        ("ArrowRight", ArrowRight),
        ("Enter", Enter),
        ("Space", Space),
        ("Tab", Tab),
        ("Backspace", Backspace),
        ("Escape", Escape),
        ("ShiftLeft", ShiftLeft),
        ("ShiftRight", ShiftRight),
        ("ControlLeft", ControlLeft),
        ("ControlRight", ControlRight),
        ("AltLeft", AltLeft),
        ("AltRight", AltRight),
        ("Comma", Comma),
        ("Period", Period),
        ("Slash", Slash),
        ("Semicolon", Semicolon),
        ("Quote", Quote),
        ("BracketLeft", BracketLeft),
        ("BracketRight", BracketRight),
        ("Backslash", Backslash),
        ("Minus", Minus),
        ("Equal", Equal),
        ("Backquote", Backquote),
        ("Insert", Insert),
        ("Delete", Delete),
        ("Home", Home),
        ("End", End),
        ("PageUp", PageUp),
        ("PageDown", PageDown),
        ("Numpad0", Numpad0),
        ("Numpad1", Numpad1),
        ("Numpad2", Numpad2),
        ("Numpad3", Numpad3),
        ("Numpad4", Numpad4),
        ("Numpad5", Numpad5),
        ("Numpad6", Numpad6),
        ("Numpad7", Numpad7),
        ("Numpad8", Numpad8),
        ("Numpad9", Numpad9),
        ("NumpadEnter", NumpadEnter),
    ]
};

/// Gamepad button names accepted in the file: gilrs' `Button` names.
const PAD_NAMES: &[(&str, gilrs::Button)] = {
    use gilrs::Button::*;
    &[
        ("South", South),
        ("East", East),
        ("North", North),
        ("West", West),
        ("LeftTrigger", LeftTrigger),
        ("LeftTrigger2", LeftTrigger2),
        ("RightTrigger", RightTrigger),
        ("RightTrigger2", RightTrigger2),
        ("Select", Select),
        ("Start", Start),
        ("Mode", Mode),
        ("LeftThumb", LeftThumb),
        ("RightThumb", RightThumb),
        ("DPadUp", DPadUp),
        ("DPadDown", DPadDown),
        ("DPadLeft", DPadLeft),
        ("DPadRight", DPadRight),
        ("C", C),
        ("Z", Z),
    ]
};

/// The bindings in force.
#[derive(Clone, Debug)]
pub struct Bindings {
    pub keys: BTreeMap<KeyCode, Action>,
    /// Keys pressed with Shift held (`"Shift+F1"` in the file); they win over `keys`.
    pub shifted_keys: BTreeMap<KeyCode, Action>,
    pub pad: BTreeMap<ButtonKey, Action>,
}

impl Bindings {
    /// The action of `code` pressed with or without Shift held.
    pub fn key_action(&self, code: KeyCode, shift: bool) -> Option<Action> {
        let shifted = shift.then(|| self.shifted_keys.get(&code)).flatten();
        shifted.or_else(|| self.keys.get(&code)).copied()
    }
}

/// `gilrs::Button` is not `Ord`; its name orders it here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ButtonKey(pub &'static str);

impl ButtonKey {
    pub fn of(button: gilrs::Button) -> Option<ButtonKey> {
        PAD_NAMES
            .iter()
            .find(|(_, b)| *b == button)
            .map(|(name, _)| ButtonKey(name))
    }
}

/// What the config file holds.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileFormat {
    #[serde(default)]
    keyboard: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    gamepad: BTreeMap<String, Vec<String>>,
    /// The settings, read by `settings.rs`.
    #[serde(default, rename = "player")]
    _player: Option<toml::Table>,
}

impl Bindings {
    pub fn defaults() -> Bindings {
        let table = |entries: &[(&str, &[&str])]| {
            entries
                .iter()
                .map(|(action, names)| {
                    (
                        action.to_string(),
                        names.iter().map(|n| n.to_string()).collect(),
                    )
                })
                .collect()
        };
        let file = FileFormat {
            keyboard: table(DEFAULT_KEYS),
            gamepad: table(DEFAULT_PAD),
            _player: None,
        };
        Bindings::from_file(&file).expect("the default bindings are valid")
    }

    /// Parses the text of a config file. Every problem is listed, one per line.
    /// Actions the file lists take exactly its keys (an empty list unbinds); actions it
    /// leaves out keep their defaults, minus any key the file gives to another action.
    pub fn parse(text: &str) -> Result<Bindings, Vec<String>> {
        let file: FileFormat = toml::from_str(text).map_err(|e| vec![e.to_string()])?;
        let merged = FileFormat {
            keyboard: merge(DEFAULT_KEYS, &file.keyboard),
            gamepad: merge(DEFAULT_PAD, &file.gamepad),
            _player: None,
        };
        Bindings::from_file(&merged)
    }

    fn from_file(file: &FileFormat) -> Result<Bindings, Vec<String>> {
        let mut problems = Vec::new();
        let mut keys = BTreeMap::new();
        let mut shifted_keys = BTreeMap::new();
        let mut pad = BTreeMap::new();
        for (action_name, names) in &file.keyboard {
            let Some(action) = action_named(action_name) else {
                problems.push(format!(
                    "[keyboard] {action_name}: unknown action (known: {})",
                    action_names()
                ));
                continue;
            };
            for name in names {
                let (table, key_name) = match name.get(..6) {
                    Some(prefix) if prefix.eq_ignore_ascii_case("shift+") => {
                        (&mut shifted_keys, &name[6..])
                    }
                    _ => (&mut keys, name.as_str()),
                };
                match KEY_NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(key_name)) {
                    None => problems.push(format!(
                        "[keyboard] {action_name}: unknown key \"{name}\" (use winit key names such as KeyZ, ArrowUp, Enter, F12, Shift+F1)"
                    )),
                    Some((_, code)) => {
                        if let Some(previous) = table.insert(*code, action)
                            && previous != action
                        {
                            problems.push(format!(
                                "[keyboard] key \"{name}\" is bound to both {} and {action_name}",
                                name_of(previous)
                            ));
                        }
                    }
                }
            }
        }
        for (action_name, names) in &file.gamepad {
            let Some(action) = action_named(action_name) else {
                problems.push(format!(
                    "[gamepad] {action_name}: unknown action (known: {})",
                    action_names()
                ));
                continue;
            };
            for name in names {
                match PAD_NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
                    None => problems.push(format!(
                        "[gamepad] {action_name}: unknown button \"{name}\" (known: {})",
                        PAD_NAMES
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    Some((canonical, _)) => {
                        if let Some(previous) = pad.insert(ButtonKey(canonical), action)
                            && previous != action
                        {
                            problems.push(format!(
                                "[gamepad] button \"{name}\" is bound to both {} and {action_name}",
                                name_of(previous)
                            ));
                        }
                    }
                }
            }
        }
        if problems.is_empty() {
            Ok(Bindings {
                keys,
                shifted_keys,
                pad,
            })
        } else {
            Err(problems)
        }
    }
}

fn merge(
    defaults: &[(&str, &[&str])],
    user: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Vec<String>> {
    let taken: std::collections::HashSet<String> = user
        .values()
        .flatten()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    let mut merged: BTreeMap<String, Vec<String>> = defaults
        .iter()
        .map(|(action, names)| {
            let kept = names
                .iter()
                .filter(|n| !taken.contains(&n.to_ascii_lowercase()))
                .map(|n| n.to_string())
                .collect();
            (action.to_string(), kept)
        })
        .collect();
    merged.extend(user.iter().map(|(a, n)| (a.clone(), n.clone())));
    merged
}

fn action_named(name: &str) -> Option<Action> {
    let slot = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| (1..=SLOTS).contains(n))
    };
    if let Some(n) = slot("load_slot_") {
        return Some(Action::LoadSlot(n));
    }
    if let Some(n) = slot("save_slot_") {
        return Some(Action::SaveSlot(n));
    }
    ACTIONS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, action, _)| *action)
}

fn name_of(action: Action) -> String {
    slot_action_name(action).unwrap_or_else(|| {
        ACTIONS
            .iter()
            .find(|(_, a, _)| *a == action)
            .map_or("?", |(n, _, _)| *n)
            .to_string()
    })
}

fn action_names() -> String {
    let mut names: Vec<&str> = ACTIONS.iter().map(|(n, _, _)| *n).collect();
    names.extend(["load_slot_1..10", "save_slot_1..10"]);
    names.join(", ")
}

/// The config file as written on first run.
pub fn default_file_text() -> String {
    let mut text = String::from(
        "# Backspin bindings. Each action takes a list of keys (winit key names: KeyZ,\n\
         # ArrowUp, Enter, F12, Backspace, ...) or gamepad buttons (gilrs names: South,\n\
         # East, DPadUp, LeftTrigger, ...). Actions left out keep their defaults; an empty\n\
         # list unbinds one. Delete this file to get the defaults back.\n\n[keyboard]\n",
    );
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (action, names) in DEFAULT_KEYS {
        text += &format!("{action} = [{}]\n", list(names));
    }
    text += "\n[gamepad]\n";
    for (action, names) in DEFAULT_PAD {
        text += &format!("{action} = [{}]\n", list(names));
    }
    text
}

/// The default bindings as `--help` shows them.
pub fn bindings_help() -> String {
    let mut text = format!(
        "Default bindings:\n  {:<40} {:<22} {}\n",
        "action", "keyboard", "gamepad"
    );
    for (name, _, description) in ACTIONS {
        let keys = DEFAULT_KEYS
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| k.join(", "))
            .unwrap_or_default();
        let pad = DEFAULT_PAD
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| k.join(", "))
            .unwrap_or_else(|| "-".into());
        text += &format!("  {description:<40} {keys:<22} {pad}\n");
    }
    text += &format!(
        "  {:<40} {:<22} -\n  {:<40} {:<22} -\n",
        "load save-state slot 1..10 (load_slot_N)",
        "F1..F10",
        "save to slot 1..10 (save_slot_N)",
        "Shift+F1..F10"
    );
    text += &format!(
        "Rebind them in {} (written with the defaults on first run), or pass --config FILE.",
        default_path().map_or("config.toml in the platform config directory".into(), |p| p
            .display()
            .to_string())
    );
    text
}

/// The name the config file gives `code`.
pub fn key_name(code: KeyCode) -> Option<&'static str> {
    KEY_NAMES
        .iter()
        .find(|(_, c)| *c == code)
        .map(|(name, _)| *name)
}

/// Every action, in the order the menu's Keys page lists them.
pub fn listed_actions() -> Vec<Action> {
    let mut actions: Vec<Action> = ACTIONS.iter().map(|(_, action, _)| *action).collect();
    actions.extend((1..=SLOTS).map(Action::LoadSlot));
    actions.extend((1..=SLOTS).map(Action::SaveSlot));
    actions
}

/// The config file's name of `action` (`pause`, `load_slot_3`).
pub fn action_name(action: Action) -> String {
    name_of(action)
}

/// The bindings in force, one line per action (its name, then its keys and pad buttons),
/// for the menu's help page.
pub fn bindings_lines(bindings: &Bindings) -> Vec<String> {
    let key_name = |code: &KeyCode| key_name(*code).unwrap_or("?");
    listed_actions()
        .into_iter()
        .map(|action| {
            let mut names: Vec<String> = bindings
                .keys
                .iter()
                .filter(|(_, bound)| **bound == action)
                .map(|(code, _)| key_name(code).to_string())
                .collect();
            names.extend(
                bindings
                    .shifted_keys
                    .iter()
                    .filter(|(_, bound)| **bound == action)
                    .map(|(code, _)| format!("Shift+{}", key_name(code))),
            );
            names.extend(
                bindings
                    .pad
                    .iter()
                    .filter(|(_, bound)| **bound == action)
                    .map(|(button, _)| format!("pad {}", button.0)),
            );
            let names = if names.is_empty() {
                "-".to_string()
            } else {
                names.join(", ")
            };
            format!("{:<14}{names}", name_of(action))
        })
        .collect()
}

/// The default config file location (`None` when the platform has no home directory).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "backspin").map(|d| d.config_dir().join("config.toml"))
}

/// Loads the bindings from `path`, creating the file with the defaults when it is missing.
/// Problems are logged and the defaults used; nothing here panics or stops the player.
pub fn load(path: Option<&Path>) -> Bindings {
    let Some(path) = path else {
        log::warn!("no config directory on this system; using the default bindings");
        return Bindings::defaults();
    };
    match std::fs::read_to_string(path).map(|text| migrate_menu_keys(path, text)) {
        Ok(text) => match Bindings::parse(&text) {
            Ok(bindings) => {
                log::info!("bindings from {}", path.display());
                bindings
            }
            Err(problems) => {
                log::warn!(
                    "{} has problems; using the default bindings instead:",
                    path.display()
                );
                for problem in problems {
                    log::warn!("  {}: {problem}", path.display());
                }
                Bindings::defaults()
            }
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(path, default_file_text()));
            match written {
                Ok(()) => log::info!("wrote the default bindings to {}", path.display()),
                Err(error) => log::warn!("cannot write {}: {error}", path.display()),
            }
            Bindings::defaults()
        }
        Err(error) => {
            log::warn!(
                "cannot read {}: {error}; using the default bindings",
                path.display()
            );
            Bindings::defaults()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_file_parses_to_the_defaults() {
        let parsed = Bindings::parse(&default_file_text()).expect("defaults parse");
        let defaults = Bindings::defaults();
        assert_eq!(parsed.keys, defaults.keys);
        assert_eq!(parsed.pad, defaults.pad);
        assert_eq!(defaults.keys[&KeyCode::Backspace], Action::Rewind);
        assert_eq!(
            defaults.keys[&KeyCode::KeyX],
            Action::Joypad(backspin_core::Buttons::A)
        );
    }

    #[test]
    fn malformed_files_give_clear_messages() {
        let problems = Bindings::parse("[keyboard\nup = 3").expect_err("bad TOML");
        assert_eq!(problems.len(), 1);
        let problems = Bindings::parse("[keyboard]\njump = [\"KeyZ\"]\na = [\"Kez\"]\n")
            .expect_err("bad names");
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("unknown action")));
        assert!(problems.iter().any(|p| p.contains("unknown key \"Kez\"")));
        let problems = Bindings::parse("[keyboard]\na = [\"KeyZ\"]\nb = [\"KeyZ\"]\n")
            .expect_err("double binding");
        assert!(problems[0].contains("bound to both"), "{problems:?}");
        assert!(Bindings::parse("[mouse]\n").is_err());
    }

    #[test]
    fn a_partial_file_overrides_only_what_it_names() {
        // A takes Z, which B had by default: B loses it, everything else stays.
        let bindings = Bindings::parse("[keyboard]\na = [\"KeyZ\"]\nreset = []\n").expect("valid");
        assert_eq!(
            bindings.keys[&KeyCode::KeyZ],
            Action::Joypad(backspin_core::Buttons::A)
        );
        assert!(!bindings.keys.contains_key(&KeyCode::KeyX));
        assert!(!bindings.keys.contains_key(&KeyCode::KeyR));
        assert_eq!(bindings.keys[&KeyCode::Backspace], Action::Rewind);
        assert_eq!(bindings.pad.len(), Bindings::defaults().pad.len());
    }

    #[test]
    fn load_writes_defaults_then_survives_a_broken_file() {
        let dir = std::env::temp_dir().join(format!("backspin-config-test-{}", std::process::id()));
        let path = dir.join("sub/config.toml");
        let _ = std::fs::remove_dir_all(&dir);
        let bindings = load(Some(&path));
        assert!(path.exists());
        assert_eq!(bindings.keys.len(), Bindings::defaults().keys.len());
        std::fs::write(&path, "this is = = not toml").unwrap();
        let bindings = load(Some(&path));
        assert_eq!(bindings.keys[&KeyCode::Backspace], Action::Rewind);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "this is = = not toml",
            "a user's file is never overwritten"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn escape_bound_to_pause_moves_to_the_menu_keeping_the_rest_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let old = "# my keys\n[keyboard]\n# pausing\npause = [\"KeyP\", \"Escape\"] # both\na = [\"KeyS\"]\n\n[gamepad]\npause = [\"Mode\"]\n";
        std::fs::write(&path, old).unwrap();
        let bindings = load(Some(&path));
        let migrated = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            migrated,
            "# my keys\n[keyboard]\n# pausing\npause = [\"KeyP\"] # both\na = [\"KeyS\"]\n\n[gamepad]\npause = []\n"
        );
        assert_eq!(
            bindings.key_action(KeyCode::Escape, false),
            Some(Action::Menu)
        );
        assert_eq!(
            bindings.key_action(KeyCode::KeyP, false),
            Some(Action::Pause)
        );
        assert_eq!(
            bindings.key_action(KeyCode::KeyS, false),
            Some(Action::Joypad(backspin_core::Buttons::A))
        );
        assert_eq!(bindings.pad.get(&ButtonKey("Mode")), Some(&Action::Menu));
        // Once migrated, the file is left alone.
        assert!(rewrite::without_pause_menu_keys(&migrated).is_none());
        assert!(rewrite::without_pause_menu_keys(&default_file_text()).is_none());
    }

    #[test]
    fn help_lines_show_the_bindings_in_force() {
        let bindings = Bindings::parse("[keyboard]\npause = [\"KeyQ\"]\n").unwrap();
        let lines = bindings_lines(&bindings);
        assert!(lines.contains(&format!("{:<14}KeyQ", "pause")), "{lines:?}");
        assert!(
            lines.contains(&format!("{:<14}Escape, pad Mode", "menu")),
            "{lines:?}"
        );
        assert!(
            lines.contains(&format!("{:<14}Shift+F3", "save_slot_3")),
            "{lines:?}"
        );
    }
}
