//! The window: winit event handling, key and gamepad input, hotkeys, title, screenshots.
//! The UI thread never waits on emulation: frames arrive on a channel and a user event wakes
//! the loop; commands go out with non-blocking sends.

mod menu_input;

use menu_input::{Rebind, menu_key, menu_key_of};

use super::audio::AudioOutput;
use super::config::{Action, Bindings, ButtonKey};
use super::emu::{Command, FrameInfo, FrameReceiver, Mode};
use super::game::Game;
use super::input::{Effect, InputState, PadEvent, Source};
use super::menu::{Choice, Menu, MenuKey, RecentRow};
use super::menu_gui::MenuScene;
use super::overlay::{self, OverlayOptions};
use super::picture::{ColourCorrection, Colours, Picture};
use super::present::Presenter;
use super::settings::{Setting, Settings};
use super::slots::Slots;
use crate::ModelArg;
use backspin_core::{Buttons, Rom, SCREEN_HEIGHT, SCREEN_WIDTH};
use crossbeam_channel::{Receiver, Sender};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::dpi::LogicalSize;
use winit::event::{ElementState, KeyEvent, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Fullscreen, Window, WindowId};

/// Sent by the emulation thread after it queued a frame.
#[derive(Debug, Clone, Copy)]
pub struct FrameReady;

/// How the window shows the game, and what a dropped ROM runs on.
pub struct ViewOptions {
    /// Skip the GPU presenter.
    pub software: bool,
    /// The settings in force (the config file's, with the command line's over them).
    pub settings: Settings,
    /// Where the menu's Settings page writes them.
    pub config_path: Option<PathBuf>,
    /// The game's file (`None`: the embedded demo).
    pub rom_path: Option<PathBuf>,
    /// Speedrun mode, with the ROM's CRC-32 shown beside the timer.
    pub speedrun_crc: Option<u32>,
}

/// Test and automation hooks.
#[derive(Default)]
pub struct Automation {
    /// Save the game picture as PNG after this many emulated frames, then quit.
    pub screenshot_after: Option<(u64, PathBuf)>,
    /// Quit after this long.
    pub quit_after: Option<Duration>,
}

pub struct App {
    pub window: Option<Arc<Window>>,
    presenter: Option<Presenter>,
    software: bool,
    /// The model option, applied to dropped ROMs as to the first one.
    model: ModelArg,
    settings: Settings,
    config_path: Option<PathBuf>,
    /// The game playing (`None`: the demo), for a restart in speedrun mode.
    pub rom_path: Option<PathBuf>,
    /// The menu asked to start again in speedrun mode once this window has closed.
    pub restart_in_speedrun: bool,
    /// Speedrun mode (the ROM's CRC-32): locked keys only toast.
    speedrun_crc: Option<u32>,
    frames: FrameReceiver,
    /// One-line messages from the emulation thread, shown as toasts.
    notices: Receiver<String>,
    /// The current game's save-state slots (for the thumbnail strip).
    slots: Option<Slots>,
    /// Shift is held: slot keys save, and the slot strip shows.
    shift_held: bool,
    /// The slot thumbnails, read when Shift goes down (and after a save while it is held).
    strip: Option<Vec<Option<Vec<u8>>>>,
    /// The action each held key started, so its release ends that action even if Shift
    /// changed in between.
    key_actions: BTreeMap<KeyCode, Action>,
    commands: Sender<Command>,
    /// The sound device (kept on this thread), reopened if it goes away.
    audio: AudioOutput,
    bindings: Bindings,
    gilrs: Option<gilrs::Gilrs>,
    rom_title: String,
    /// What the keyboard and each gamepad hold.
    input: InputState,
    effects: Vec<Effect>,
    rgba: Vec<u8>,
    /// The last picture received, as the core drew it.
    picture: Box<Picture>,
    /// The window's colours (with the chosen correction) and the plain ones screenshots use.
    shown_colours: Colours,
    plain_colours: Colours,
    info: FrameInfo,
    show_info: bool,
    toast: Option<(String, Instant)>,
    title_shown: String,
    title_updated: Instant,
    title_mode: Option<Mode>,
    /// Whether the title shown says the menu is open.
    title_menu: bool,
    /// The open menu, if any.
    menu: Option<Menu>,
    /// The slot the menu's slot entries start on: the last one it used.
    menu_slot: u8,
    /// The current bindings, one line each, for the menu's help page.
    help_lines: Vec<String>,
    /// Where the mouse is (physical pixels), for clicks on menu lines.
    cursor: Option<(f64, f64)>,
    /// The Game Boy buttons last sent: START and SELECT going down together open the menu.
    buttons: u8,
    automation: Automation,
    started: Instant,
    presented: PresentStats,
    /// Off only to measure what the closed menu costs (`BACKSPIN_MENU_HOOKS=off`, see
    /// `tools/menu-cost.sh`): the menu never opens and each frame skips its checks.
    menu_hooks: bool,
    pub exit_error: Option<String>,
}

/// Presented frames per second, logged at debug level.
struct PresentStats {
    since: Instant,
    count: u32,
    worst_gap: Duration,
    /// Time spent drawing and presenting the frames counted.
    busy: Duration,
    last: Instant,
}

impl App {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        frames: FrameReceiver,
        notices: Receiver<String>,
        slots: Option<Slots>,
        commands: Sender<Command>,
        audio: AudioOutput,
        bindings: Bindings,
        rom_title: String,
        view: ViewOptions,
        automation: Automation,
    ) -> App {
        let gilrs = match gilrs::Gilrs::new() {
            Ok(gilrs) => Some(gilrs),
            Err(gilrs::Error::NotImplemented(dummy)) => Some(dummy),
            Err(error) => {
                log::warn!("gamepads unavailable ({error}); keyboard only");
                None
            }
        };
        let now = Instant::now();
        let help_lines = super::config::bindings_lines(&bindings);
        App {
            window: None,
            presenter: None,
            software: view.software,
            model: view.settings.model,
            settings: view.settings,
            config_path: view.config_path,
            rom_path: view.rom_path,
            restart_in_speedrun: false,
            speedrun_crc: view.speedrun_crc,
            frames,
            notices,
            slots,
            shift_held: false,
            strip: None,
            key_actions: BTreeMap::new(),
            commands,
            audio,
            bindings,
            gilrs,
            rom_title,
            input: InputState::default(),
            effects: Vec::new(),
            rgba: vec![0; SCREEN_WIDTH * SCREEN_HEIGHT * 4],
            picture: Picture::boxed(),
            shown_colours: Colours::new(view.settings.colour_correction, view.settings.palette),
            plain_colours: Colours::new(ColourCorrection::Off, super::picture::PLAYER_PALETTE),
            info: FrameInfo::default(),
            show_info: false,
            toast: None,
            title_shown: String::new(),
            title_updated: now,
            title_mode: None,
            title_menu: false,
            menu: None,
            menu_slot: 1,
            help_lines,
            cursor: None,
            buttons: 0,
            automation,
            started: now,
            presented: PresentStats {
                since: now,
                count: 0,
                worst_gap: Duration::ZERO,
                busy: Duration::ZERO,
                last: now,
            },
            menu_hooks: std::env::var("BACKSPIN_MENU_HOOKS").map_or(true, |v| v != "off"),
            exit_error: None,
        }
    }

    fn send(&self, command: Command) {
        // Unbounded channel: never blocks. A closed one means emulation ended; we exit soon.
        let _ = self.commands.send(command);
    }

    fn toast(&mut self, text: impl Into<String>) {
        self.toast = Some((text.into(), Instant::now()));
    }

    /// A binding of `source` went down or up.
    fn action(&mut self, source: Source, action: Action, pressed: bool) {
        if self.speedrun_crc.is_some() && locked_in_speedrun(action) {
            if pressed {
                self.toast("LOCKED IN SPEEDRUN MODE");
            }
            return;
        }
        self.input
            .action(source, action, pressed, &mut self.effects);
        self.apply_effects();
    }

    /// Carries out (and drains) what the input bookkeeping asked for.
    fn apply_effects(&mut self) {
        // Taken out for the loop (the handlers need `&mut self`), put back to keep its buffer.
        let mut effects = std::mem::take(&mut self.effects);
        for effect in effects.drain(..) {
            match effect {
                Effect::Buttons(buttons) => {
                    let chord = Buttons::START | Buttons::SELECT;
                    let was_chord = self.buttons & chord == chord;
                    self.buttons = buttons;
                    self.send(Command::Buttons(buttons));
                    if buttons & chord == chord && !was_chord && self.menu.is_none() {
                        self.open_menu();
                    }
                }
                Effect::Hold(Action::Rewind, held) => self.send(Command::Rewind(held)),
                Effect::Hold(Action::Forward, held) => self.send(Command::Forward(held)),
                Effect::Hold(Action::FastForward, held) => self.send(Command::FastForward(held)),
                Effect::Hold(..) => {}
                Effect::Press(action) => self.press(action),
                Effect::PadConnected => self.toast("GAMEPAD CONNECTED"),
                Effect::PadDisconnected => self.toast("GAMEPAD DISCONNECTED"),
            }
        }
        self.effects = effects;
    }

    /// A press-to-act hotkey.
    fn press(&mut self, action: Action) {
        match action {
            Action::FrameAdvance => self.send(Command::FrameAdvance),
            Action::FrameBack => self.send(Command::FrameBack),
            Action::Pause => self.send(Command::TogglePause),
            Action::Reset => {
                self.send(Command::Reset);
                self.toast("RESET");
            }
            Action::Screenshot => self.screenshot(),
            Action::InputDisplay => self.show_info = !self.show_info,
            Action::Fullscreen => {
                if let Some(window) = &self.window {
                    let fullscreen = match window.fullscreen() {
                        Some(_) => None,
                        None => Some(Fullscreen::Borderless(None)),
                    };
                    window.set_fullscreen(fullscreen);
                }
            }
            Action::LoadSlot(slot) => self.send(Command::LoadSlot(slot)),
            Action::SaveSlot(slot) => self.send(Command::SaveSlot(slot)),
            Action::UndoLoad => self.send(Command::UndoLoad),
            Action::UndoSave => self.send(Command::UndoSave),
            Action::RecordMovie => self.send(Command::ToggleRecording),
            Action::Menu => self.open_menu(),
            Action::Joypad(_) | Action::Rewind | Action::Forward | Action::FastForward => {}
        }
    }

    /// Shows the emulation thread's messages; a save changes the strip, so it is re-read.
    fn drain_notices(&mut self) {
        let mut any = false;
        while let Ok(text) = self.notices.try_recv() {
            self.toast(text);
            any = true;
        }
        if any {
            self.refresh_strip();
            if let Some(window) = &self.window {
                window.request_redraw();
            }
        }
    }

    /// Reads the slot thumbnails while Shift is held (ten small files), else drops them.
    fn refresh_strip(&mut self) {
        let menu_on_a_slot = self.menu.as_ref().is_some_and(Menu::on_a_slot);
        self.strip = match (&self.slots, self.shift_held || menu_on_a_slot) {
            (Some(slots), true) => Some(
                (1..=super::config::SLOTS)
                    .map(|slot| slots.thumbnail(slot))
                    .collect(),
            ),
            _ => None,
        };
    }

    fn screenshot(&mut self) {
        let name = format!(
            "backspin-{}-{}.png",
            self.rom_title
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
            self.info.span.position
        );
        match crate::screen_png::write_rgba(&PathBuf::from(&name), &self.plain_rgba()) {
            Ok(()) => {
                log::info!("screenshot saved to {name}");
                self.toast("SCREENSHOT SAVED");
            }
            Err(error) => {
                log::warn!("screenshot {name}: {error}");
                self.toast("SCREENSHOT FAILED");
            }
        }
    }

    /// The picture as a screenshot saves it: the plain colour expansion, whatever the window
    /// shows, so screenshots compare with `backspin run --screenshot` and the test suites.
    fn plain_rgba(&self) -> Vec<u8> {
        let mut rgba = vec![0; SCREEN_WIDTH * SCREEN_HEIGHT * 4];
        self.plain_colours.to_rgba(&self.picture, &mut rgba);
        rgba
    }

    fn update_title(&mut self) {
        let state = match self.info.mode {
            Mode::Playing => String::new(),
            Mode::Paused => " - paused".into(),
            Mode::Rewinding => " - rewinding".into(),
            Mode::Forwarding => " - redo".into(),
            Mode::FastForward => format!(" - fast-forward x{:.1}", self.info.speed),
        };
        let menu_open = self.menu_hooks && self.menu.is_some();
        let menu = if menu_open { " - menu" } else { "" };
        let title = format!(
            "Backspin - {} - frame {}{state}{menu}",
            self.rom_title, self.info.span.position
        );
        // Title changes cost a round trip to the window system: a few per second is plenty.
        let mode_changed = self.title_mode != Some(self.info.mode) || self.title_menu != menu_open;
        if title != self.title_shown
            && (mode_changed || self.title_updated.elapsed() >= Duration::from_millis(250))
            && let Some(window) = &self.window
        {
            window.set_title(&title);
            self.title_shown = title;
            self.title_updated = Instant::now();
            self.title_mode = Some(self.info.mode);
            self.title_menu = menu_open;
        }
    }

    /// Draws the picture and whatever is over it. Returns whether the menu asked to quit.
    fn redraw(&mut self) -> bool {
        let started = Instant::now();
        self.shown_colours.to_rgba(&self.picture, &mut self.rgba);
        if self
            .toast
            .as_ref()
            .is_some_and(|(_, at)| at.elapsed() > Duration::from_secs(2))
        {
            self.toast = None;
        }
        let recording = self.info.recording;
        // With the menu hooks off (BACKSPIN_MENU_HOOKS=off, for measuring their cost) no menu
        // is drawn.
        let menu = self.menu.as_ref().filter(|_| self.menu_hooks);
        let menu_lines = menu.map(|menu| menu.lines(recording, &self.help_lines));
        let toast = self.toast.as_ref().map(|(text, _)| text.as_str());
        // The GPU presenter draws the open menu with egui over the plain picture.
        let egui_menu = match (menu, &menu_lines, &self.presenter) {
            (Some(menu), Some((lines, highlighted)), Some(presenter)) if presenter.draws_menu() => {
                Some(MenuScene {
                    lines,
                    heading: menu.has_heading(),
                    highlighted: *highlighted,
                    strip: self.strip.as_deref().map(|strip| (strip, menu.slot())),
                    picture: menu.picture(),
                    toast,
                })
            }
            _ => None,
        };
        if egui_menu.is_none() {
            let options = OverlayOptions {
                menu_picture: menu.and_then(Menu::picture),
                menu: menu_lines
                    .as_ref()
                    .map(|(lines, highlighted)| (lines.as_slice(), *highlighted)),
                show_info: self.show_info,
                toast,
                slot_strip: self.strip.as_deref(),
                speedrun_crc: self.speedrun_crc,
            };
            overlay::draw(&mut self.rgba, &self.info, &options);
        }
        let (Some(window), Some(presenter)) = (&self.window, &mut self.presenter) else {
            return false;
        };
        let size = window.inner_size();
        let view = self.settings.view;
        let menu = egui_menu.as_ref().map(|scene| (window.as_ref(), scene));
        let clicked = match presenter.present(&self.rgba, size.width, size.height, view, menu) {
            Ok(clicked) => clicked,
            Err(error) => {
                log::warn!("present: {error}");
                None
            }
        };
        let now = Instant::now();
        let stats = &mut self.presented;
        stats.count += 1;
        stats.worst_gap = stats.worst_gap.max(now - stats.last);
        stats.busy += now - started;
        stats.last = now;
        if now - stats.since >= Duration::from_secs(1) {
            log::debug!(
                "presented {:.1} frames/s ({:?}), longest gap {:.1} ms, redraw mean {:.3} ms",
                f64::from(stats.count) / (now - stats.since).as_secs_f64(),
                self.info.mode,
                stats.worst_gap.as_secs_f64() * 1000.0,
                stats.busy.as_secs_f64() * 1000.0 / f64::from(stats.count)
            );
            stats.since = now;
            stats.count = 0;
            stats.worst_gap = Duration::ZERO;
            stats.busy = Duration::ZERO;
        }
        clicked.is_some_and(|click| self.menu_click(click))
    }

    /// Plays the ROM at `path` (dropped, or picked in the menu; `browsed`: in the file
    /// browser, whose folder is remembered).
    fn load_rom(&mut self, path: PathBuf, browsed: bool) {
        if self.speedrun_crc.is_some() {
            self.toast("LOCKED IN SPEEDRUN MODE");
            return;
        }
        let rom = match crate::rom_file::load_rom(&path) {
            Ok(rom) => rom,
            Err(error) => {
                log::warn!("{error}");
                self.toast("NOT A GAME BOY ROM");
                return;
            }
        };
        let title = display_title(&rom, &path);
        // A save that does not fit is refused and the current game plays on, unharmed.
        let model = crate::headless::model_of(self.model, &rom);
        match Game::open(rom, Some(&path), model) {
            Ok(game) => {
                super::recent::remember(
                    &path,
                    &title,
                    &format!("{model:?}"),
                    game.slots.as_ref(),
                    browsed,
                );
                self.rom_title = title;
                self.slots = game.slots.clone();
                self.refresh_strip();
                log::info!("opened {}", path.display());
                self.rom_path = Some(path);
                self.send(Command::LoadGame(Box::new(game)));
                self.toast("ROM LOADED");
            }
            Err(error) => {
                log::error!("{error}");
                self.toast("BAD BATTERY SAVE");
            }
        }
    }

    /// Returns whether the menu asked to quit.
    fn poll_gamepads(&mut self) -> bool {
        let mut quit = false;
        while let Some(gilrs) = &mut self.gilrs {
            let Some(event) = gilrs.next_event() else {
                break;
            };
            let Some(event) = PadEvent::from_gilrs(&event) else {
                continue;
            };
            let waiting = self.menu.as_ref().and_then(Menu::waiting_for_key);
            if let (
                Some(row),
                PadEvent::Button {
                    button,
                    pressed: true,
                    ..
                },
            ) = (waiting, event)
            {
                if let Some(button) = ButtonKey::of(button) {
                    if let Some(menu) = &mut self.menu {
                        menu.stop_waiting();
                    }
                    self.rewrite_bindings(Some((row, Rebind::Button(button))));
                    self.menu_changed();
                }
            } else if self.menu.is_none() {
                self.input
                    .pad_event(event, &self.bindings, &mut self.effects);
            } else if let PadEvent::Button {
                button,
                pressed: true,
                ..
            } = event
                && let Some(key) = ButtonKey::of(button)
                    .and_then(|key| self.bindings.pad.get(&key))
                    .and_then(|action| menu_key(*action))
            {
                quit |= self.menu_input(|menu, help| menu.key(key, help));
            }
        }
        self.apply_effects();
        quit
    }
}

impl ApplicationHandler<FrameReady> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let attributes = Window::default_attributes()
            .with_title(format!("Backspin - {}", self.rom_title))
            .with_inner_size(LogicalSize::new(
                (SCREEN_WIDTH * 4) as f64,
                (SCREEN_HEIGHT * 4) as f64,
            ))
            .with_min_inner_size(LogicalSize::new(SCREEN_WIDTH as f64, SCREEN_HEIGHT as f64))
            .with_fullscreen(
                self.settings
                    .fullscreen
                    .then_some(Fullscreen::Borderless(None)),
            );
        let window = match event_loop.create_window(attributes) {
            Ok(window) => Arc::new(window),
            Err(error) => {
                self.exit_error = Some(format!("cannot open a window: {error}"));
                event_loop.exit();
                return;
            }
        };
        match Presenter::new(&window, self.software) {
            Ok(presenter) => self.presenter = Some(presenter),
            Err(error) => {
                self.exit_error = Some(error);
                event_loop.exit();
                return;
            }
        }
        self.window = Some(window);
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, _: FrameReady) {
        if super::quit_signalled() {
            log::info!("quitting on a signal");
            event_loop.exit();
            return;
        }
        self.drain_notices();
        let Some(frame) = self.frames.frames.try_iter().last() else {
            return;
        };
        // The box shown so far goes back to be filled again (dropped if that channel is
        // full, which only happens while boxes are still being made at start-up).
        let shown = std::mem::replace(&mut self.picture, frame.picture);
        let _ = self.frames.recycle.try_send(shown);
        self.info = frame.info;
        self.update_title();
        if let Some(window) = &self.window {
            window.request_redraw();
        }
        if let Some((after, path)) = &self.automation.screenshot_after
            && self.info.span.position >= *after
        {
            if let Err(error) = crate::screen_png::write_rgba(path, &self.plain_rgba()) {
                self.exit_error = Some(format!("screenshot {}: {error}", path.display()));
            }
            event_loop.exit();
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        if self.menu.is_some()
            && let (Some(window), Some(presenter)) = (&self.window, &mut self.presenter)
            && presenter.menu_event(window, &event)
        {
            window.request_redraw();
        }
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(presenter) = &mut self.presenter {
                    presenter.resize(size.width, size.height);
                }
                if let Some(window) = &self.window {
                    window.request_redraw();
                }
            }
            // Drawing the egui menu can carry out a click, Quit among them.
            WindowEvent::RedrawRequested if self.redraw() => event_loop.exit(),
            WindowEvent::DroppedFile(path) => self.load_rom(path, false),
            WindowEvent::Focused(false) => {
                // Keys released while unfocused never arrive: let go of everything.
                self.input.release(Source::Keyboard, &mut self.effects);
                self.key_actions.clear();
                self.apply_effects();
                if self.settings.pause_on_focus_loss {
                    self.send(Command::Unfocused(true));
                }
            }
            // Sent whatever the setting says now: it may have changed in between.
            WindowEvent::Focused(true) => self.send(Command::Unfocused(false)),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        physical_key: PhysicalKey::Code(code),
                        state,
                        ..
                    },
                ..
            } => {
                let pressed = state == ElementState::Pressed;
                if let Some(row) = self.menu.as_ref().and_then(Menu::waiting_for_key) {
                    if pressed {
                        if let Some(menu) = &mut self.menu {
                            menu.stop_waiting();
                        }
                        if code != KeyCode::Escape {
                            self.rewrite_bindings(Some((row, Rebind::Key(code))));
                        }
                        self.menu_changed();
                    }
                    return;
                }
                if self.menu.is_some() {
                    if pressed
                        && let Some(key) = menu_key_of(code)
                            .or_else(|| self.bindings.key_action(code, false).and_then(menu_key))
                        && self.menu_input(|menu, help| menu.key(key, help))
                    {
                        event_loop.exit();
                    }
                    return;
                }
                let action = if pressed {
                    let action = self.bindings.key_action(code, self.shift_held);
                    if let Some(action) = action {
                        self.key_actions.insert(code, action);
                    }
                    action
                } else {
                    self.key_actions.remove(&code)
                };
                if let Some(action) = action {
                    self.action(Source::Keyboard, action, pressed);
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.cursor = Some((position.x, position.y));
            }
            WindowEvent::CursorLeft { .. } => self.cursor = None,
            WindowEvent::MouseInput {
                state: ElementState::Pressed,
                button,
                ..
            } => {
                let quit = match (button, self.menu.is_some()) {
                    (MouseButton::Right, false) => {
                        self.open_menu();
                        false
                    }
                    (MouseButton::Right, true) => {
                        self.menu_input(|menu, help| menu.key(MenuKey::Back, help))
                    }
                    // The egui menu reports its clicks when it is drawn.
                    (MouseButton::Left, true) if self.egui_menu() => false,
                    (MouseButton::Left, true) => match self.menu_line_under_cursor() {
                        Some(line) => self.menu_input(|menu, help| menu.click(line, help)),
                        None => false,
                    },
                    _ => false,
                };
                if quit {
                    event_loop.exit();
                }
            }
            WindowEvent::ModifiersChanged(modifiers) => {
                let shift = modifiers.state().shift_key();
                if shift != self.shift_held {
                    self.shift_held = shift;
                    self.refresh_strip();
                    if let Some(window) = &self.window {
                        window.request_redraw();
                    }
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.poll_gamepads() {
            event_loop.exit();
        }
        self.drain_notices();
        if let Some(sink) = self.audio.reconnect() {
            self.send(Command::Audio(Box::new(sink)));
            self.toast("AUDIO BACK");
        }
        // Catches up a title change held back by the rate limit when no frame follows.
        self.update_title();
        if self.frames.frames.is_empty()
            && matches!(
                self.frames.frames.try_recv(),
                Err(crossbeam_channel::TryRecvError::Disconnected)
            )
        {
            self.exit_error = Some("the emulation thread stopped".into());
            event_loop.exit();
        }
        if let Some(limit) = self.automation.quit_after
            && self.started.elapsed() >= limit
        {
            event_loop.exit();
        }
        // Wake now and then for gamepads and toasts even when no frame comes (paused).
        event_loop.set_control_flow(ControlFlow::WaitUntil(
            Instant::now() + Duration::from_millis(8),
        ));
        if (self.toast.is_some() || self.strip.is_some())
            && self.info.mode == Mode::Paused
            && let Some(window) = &self.window
        {
            window.request_redraw();
        }
    }

    fn exiting(&mut self, _: &ActiveEventLoop) {
        self.send(Command::Quit);
    }
}

/// The keys speedrun mode refuses: going back in time, changing speed, pausing (which
/// would allow slow motion by another name), states, and stopping the run's recording.
fn locked_in_speedrun(action: Action) -> bool {
    matches!(
        action,
        Action::Rewind
            | Action::Forward
            | Action::Pause
            | Action::FrameAdvance
            | Action::FrameBack
            | Action::FastForward
            | Action::LoadSlot(_)
            | Action::SaveSlot(_)
            | Action::UndoLoad
            | Action::UndoSave
            | Action::RecordMovie
    )
}

/// The title shown for a ROM: its header title, else the file name.
pub fn display_title(rom: &Rom, path: &std::path::Path) -> String {
    let title = rom.title();
    if title.trim().is_empty() {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "untitled".into())
    } else {
        title
    }
}
