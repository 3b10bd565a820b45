//! The window's side of the menu: opening and closing it, routing keys, pad buttons and
//! clicks to it, and carrying out what is chosen (slots, rebinding, settings, recent games,
//! the file browser).

use super::*;
use crate::player::menu_gui::MenuClick;

impl App {
    /// Opens the menu: everything held is let go, and the game holds still until it closes.
    pub(super) fn open_menu(&mut self) {
        if self.menu.is_some() || !self.menu_hooks {
            return;
        }
        self.input.release_all(&mut self.effects);
        self.key_actions.clear();
        self.apply_effects();
        self.menu = Some(Menu::new(self.menu_slot));
        self.send(Command::MenuOpen(true));
        self.menu_changed();
    }

    pub(super) fn close_menu(&mut self) {
        if let Some(menu) = self.menu.take() {
            self.menu_slot = menu.slot();
            self.send(Command::MenuOpen(false));
            self.menu_changed();
        }
    }

    /// The menu opened, closed or moved: the strip, the title and the picture follow.
    pub(super) fn menu_changed(&mut self) {
        self.refresh_strip();
        self.update_title();
        if let Some(window) = &self.window {
            window.request_redraw();
        }
    }

    /// A key, pad button or click in the open menu. Returns whether to quit.
    pub(super) fn menu_input(&mut self, choice: impl FnOnce(&mut Menu, usize) -> Choice) -> bool {
        let Some(menu) = &mut self.menu else {
            return false;
        };
        let choice = choice(menu, self.help_lines.len());
        match choice {
            Choice::Stay => {}
            Choice::Close => self.close_menu(),
            Choice::Act(action) => self.menu_action(action),
            Choice::CloseAndAct(action) => {
                self.close_menu();
                self.menu_action(action);
            }
            Choice::ShowRecent => {
                let rows = recent_rows();
                log::info!(
                    "recent games: {} listed, {} with a picture, {} missing",
                    rows.len(),
                    rows.iter().filter(|row| row.picture.is_some()).count(),
                    rows.iter().filter(|row| row.missing).count()
                );
                if let Some(menu) = &mut self.menu {
                    menu.show_recent(rows);
                }
            }
            Choice::Browse => {
                let start = browser_start();
                log::info!("browsing {}", start.display());
                if let Some(menu) = &mut self.menu {
                    menu.show_folder(&start);
                }
            }
            Choice::Open { path, browsed } => {
                self.close_menu();
                self.load_rom(path, browsed);
            }
            Choice::Forget(path) => crate::player::recent::forget(&path),
            Choice::ResetBindings => self.rewrite_bindings(None),
            Choice::RestartInSpeedrun if self.speedrun_crc.is_some() => {
                self.toast("ALREADY IN SPEEDRUN MODE")
            }
            Choice::RestartInSpeedrun => {
                self.restart_in_speedrun = true;
                return true;
            }
            Choice::ShowSettings => {
                let settings = self.settings;
                if let Some(menu) = &mut self.menu {
                    menu.show_settings(settings);
                }
            }
            Choice::Set(settings, setting) => self.change_setting(settings, setting),
            Choice::Quit => return true,
        }
        self.menu_changed();
        false
    }

    /// Binds a key or pad button to the action of the Keys page's row `row` (`None`: every
    /// binding back to its default), in config.toml (comments kept) and at once.
    pub(super) fn rewrite_bindings(&mut self, rebind: Option<(usize, Rebind)>) {
        let Some(path) = self.config_path.clone() else {
            self.toast("NO CONFIG FILE");
            return;
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                crate::player::config::default_file_text()
            }
            Err(error) => {
                log::warn!("{}: {error}", path.display());
                self.toast("CONFIG NOT READ");
                return;
            }
        };
        let mut message = "KEYS RESET TO DEFAULTS".to_string();
        let rewritten = match rebind {
            None => crate::player::config::reset_bindings(&text),
            Some((row, rebind)) => {
                let Some(action) = crate::player::config::listed_actions().get(row).copied() else {
                    return;
                };
                let (rebound, key) = match rebind {
                    Rebind::Key(code) => (
                        crate::player::config::rebind_key(&text, &self.bindings, action, code),
                        crate::player::config::key_name(code)
                            .unwrap_or("?")
                            .to_string(),
                    ),
                    Rebind::Button(button) => (
                        crate::player::config::rebind_button(&text, &self.bindings, action, button),
                        format!("pad {}", button.0),
                    ),
                };
                rebound.map(|(text, taken_from)| {
                    let name = crate::player::config::action_name(action);
                    message = match taken_from {
                        Some(other) => format!(
                            "bound {key} to {name}, taken from {}",
                            crate::player::config::action_name(other)
                        ),
                        None => format!("bound {key} to {name}"),
                    };
                    text
                })
            }
        };
        let result = rewritten.and_then(|text| {
            let bindings = Bindings::parse(&text).map_err(|problems| problems.join("; "))?;
            crate::battery::write_atomic(&path, text.as_bytes())
                .map_err(|error| crate::error::describe_io(&error))?;
            Ok(bindings)
        });
        match result {
            Ok(bindings) => {
                log::info!("{message} ({})", path.display());
                self.help_lines = crate::player::config::bindings_lines(&bindings);
                self.bindings = bindings;
                self.toast(message.to_uppercase());
            }
            Err(error) => {
                log::warn!("{}: keys not changed: {error}", path.display());
                self.toast("KEYS NOT CHANGED");
            }
        }
    }

    /// Saves a setting changed in the menu and applies what can change while playing.
    pub(super) fn change_setting(&mut self, settings: Settings, setting: Setting) {
        self.settings = settings;
        let saved = match &self.config_path {
            Some(path) => settings.save(path, setting),
            None => Err("no config directory on this system".to_string()),
        };
        if let Err(error) = saved {
            log::warn!("setting not saved: {error}");
            self.toast("SETTING NOT SAVED");
            return;
        }
        log::info!("saved the setting {}", settings.label(setting));
        match setting {
            Setting::Model => {
                self.model = settings.model;
                self.toast("FROM THE NEXT GAME OPENED");
            }
            Setting::ColourCorrection | Setting::Palette => {
                self.shown_colours = Colours::new(settings.colour_correction, settings.palette)
            }
            // The presenter reads the view at every redraw.
            Setting::Scale | Setting::Filter | Setting::PauseOnFocusLoss => {}
            Setting::Volume => self.audio.controls().set_volume(settings.volume),
            Setting::Mute => self.audio.controls().set_mute(settings.mute),
            Setting::AudioLatency => self
                .audio
                .controls()
                .set_latency_ms(settings.audio_latency_ms),
            Setting::FastForward => self.send(Command::FastForwardSpeed(settings.fast_forward)),
            Setting::Fullscreen => {
                if let Some(window) = &self.window {
                    window.set_fullscreen(
                        settings.fullscreen.then_some(Fullscreen::Borderless(None)),
                    );
                }
            }
            Setting::RewindBudget | Setting::Sound => self.toast("FROM THE NEXT LAUNCH"),
        }
    }

    /// What a menu entry asks for, refused in speedrun mode as its key would be.
    pub(super) fn menu_action(&mut self, action: Action) {
        if self.speedrun_crc.is_some() && locked_in_speedrun(action) {
            self.toast("LOCKED IN SPEEDRUN MODE");
        } else {
            self.press(action);
        }
    }

    /// A click in the egui menu, carried out as the model's own input. Returns whether to quit.
    pub(super) fn menu_click(&mut self, click: MenuClick) -> bool {
        match click {
            MenuClick::Line(line) => self.menu_input(|menu, help| menu.click(line, help)),
            MenuClick::Key(key) => self.menu_input(|menu, help| menu.key(key, help)),
        }
    }

    /// Whether the menu is drawn with egui (the GPU presenter), which handles its own clicks.
    pub(super) fn egui_menu(&self) -> bool {
        self.presenter.as_ref().is_some_and(Presenter::draws_menu)
    }

    /// The menu line under the mouse in the reduced menu, if the menu is open and the mouse
    /// is on the picture.
    pub(super) fn menu_line_under_cursor(&self) -> Option<usize> {
        let ((x, y), window) = (self.cursor?, self.window.as_ref()?);
        let size = window.inner_size();
        let place = crate::player::scaling::Placement::of(
            self.settings.view.scale,
            size.width as usize,
            size.height as usize,
        );
        let (x, y) = (x as usize, y as usize);
        if !place.covers_column(x) {
            return None;
        }
        let row = place.game_row(y)?;
        let line = row.checked_sub(overlay::MENU_TOP)? / overlay::MENU_LINE;
        Some(line)
    }
}

/// What the Keys page binds to the waiting action.
#[derive(Clone, Copy)]
pub(super) enum Rebind {
    Key(KeyCode),
    Button(ButtonKey),
}

/// What a key means in the menu, whatever the bindings say: the arrows move, Enter or Space
/// chooses, Escape or Backspace goes back.
pub(super) fn menu_key_of(code: KeyCode) -> Option<MenuKey> {
    Some(match code {
        KeyCode::ArrowUp => MenuKey::Up,
        KeyCode::ArrowDown => MenuKey::Down,
        KeyCode::ArrowLeft => MenuKey::Left,
        KeyCode::ArrowRight => MenuKey::Right,
        KeyCode::Enter | KeyCode::NumpadEnter | KeyCode::Space => MenuKey::Choose,
        KeyCode::Escape | KeyCode::Backspace => MenuKey::Back,
        KeyCode::Delete => MenuKey::Remove,
        _ => return None,
    })
}

/// What a bound action means in the menu: the d-pad moves, A or START chooses, B or the
/// menu's own key goes back (so the gamepad works the menu as it works the game).
pub(super) fn menu_key(action: Action) -> Option<MenuKey> {
    Some(match action {
        Action::Joypad(Buttons::UP) => MenuKey::Up,
        Action::Joypad(Buttons::DOWN) => MenuKey::Down,
        Action::Joypad(Buttons::LEFT) => MenuKey::Left,
        Action::Joypad(Buttons::RIGHT) => MenuKey::Right,
        Action::Joypad(Buttons::A | Buttons::START) => MenuKey::Choose,
        Action::Joypad(Buttons::B) | Action::Menu => MenuKey::Back,
        Action::Joypad(Buttons::SELECT) => MenuKey::Remove,
        _ => return None,
    })
}

/// The recent games as the menu lists them, with the pictures of where they stopped.
fn recent_rows() -> Vec<RecentRow> {
    let Some(data_dir) = crate::player::slots::data_dir() else {
        return Vec::new();
    };
    let now = crate::battery::unix_now();
    crate::player::recent::Recent::load(&data_dir)
        .games
        .into_iter()
        .map(|game| RecentRow {
            missing: !game.path.is_file(),
            picture: game.picture(crate::player::menu::PICTURE_SCALE),
            detail: format!(
                "{} - {}",
                game.model.to_uppercase(),
                crate::player::slots::describe_age(game.played_at, now).to_uppercase()
            ),
            title: game.title,
            path: game.path,
        })
        .collect()
}

/// Where the file browser opens: the folder a game was last opened from, else the
/// current folder.
fn browser_start() -> PathBuf {
    crate::player::slots::data_dir()
        .and_then(|dir| crate::player::recent::Recent::load(&dir).last_folder)
        .filter(|folder| folder.is_dir())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"))
}
