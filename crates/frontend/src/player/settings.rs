//! The player's settings: the `[player]` table of config.toml, changed from the menu's
//! Settings page. Each change rewrites only its own line with `toml_edit`, so the user's
//! comments, order and other tables stay as they were (the table is added at the end when
//! the file has none). A command-line option wins over the file for that run.

use super::config::rewrite::set_value;
use super::picture::ColourCorrection;
use super::scaling::View;
use crate::ModelArg;
use crate::battery::write_atomic;
use crate::error::describe_io;
use backspin_core::screen::DmgPalette;
use clap::ValueEnum;
use std::path::Path;

/// The settings in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub model: ModelArg,
    pub colour_correction: ColourCorrection,
    /// Rewind history budget in MiB (0: rewind off).
    pub rewind_mib: u16,
    /// Open the window fullscreen.
    pub fullscreen: bool,
    /// Open the sound device (off: silent, as `--no-audio`).
    pub sound: bool,
    /// The look of a DMG game's four shades (core's palettes, as the libretro core offers).
    pub palette: DmgPalette,
    /// Whole factors or fitted, and the fitted picture's filter.
    pub view: View,
    /// Sound volume in percent, 0..=100.
    pub volume: u8,
    /// Sound muted (the device stays open).
    pub mute: bool,
    /// How much sound is queued ahead of the device, in milliseconds.
    pub audio_latency_ms: u16,
    /// Fast-forward's speed as a multiple of normal (0: as fast as the machine goes).
    pub fast_forward: u8,
    /// Hold the game while the window is in the background.
    pub pause_on_focus_loss: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            model: ModelArg::Auto,
            colour_correction: ColourCorrection::Off,
            rewind_mib: 128,
            fullscreen: false,
            sound: true,
            palette: DmgPalette::Green,
            view: View::default(),
            volume: 100,
            mute: false,
            audio_latency_ms: DEFAULT_LATENCY_MS,
            fast_forward: 0,
            pause_on_focus_loss: false,
        }
    }
}

/// One line of the Settings page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Model,
    ColourCorrection,
    RewindBudget,
    Fullscreen,
    Sound,
    Palette,
    Scale,
    Filter,
    Volume,
    Mute,
    AudioLatency,
    FastForward,
    PauseOnFocusLoss,
}

/// The Settings page's lines, in order.
pub const SETTINGS: &[Setting] = &[
    Setting::Model,
    Setting::ColourCorrection,
    Setting::Palette,
    Setting::Scale,
    Setting::Filter,
    Setting::Fullscreen,
    Setting::RewindBudget,
    Setting::FastForward,
    Setting::PauseOnFocusLoss,
    Setting::Sound,
    Setting::Volume,
    Setting::Mute,
    Setting::AudioLatency,
];

/// The rewind budgets Left/Right step through (MiB).
const REWIND_STEPS: &[u16] = &[0, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// The sound latencies Left/Right step through (ms), and the range the file may give.
const LATENCY_STEPS: &[u16] = &[20, 30, 50, 80, 120, 200];
pub const DEFAULT_LATENCY_MS: u16 = 50;
pub const LATENCY_RANGE: std::ops::RangeInclusive<u16> = 10..=500;

/// The fast-forward speeds Left/Right step through (0: unlimited, last).
const FAST_FORWARD_STEPS: &[u8] = &[2, 3, 4, 8, 0];
pub const MAX_FAST_FORWARD: u8 = 16;

/// A value of `steps` after (or before) `value`, staying at the ends; a value between steps
/// moves to the neighbouring one.
fn step_in<T: Copy + PartialOrd>(steps: &[T], value: T, forward: bool) -> T {
    match forward {
        true => steps.iter().find(|s| **s > value).copied(),
        false => steps.iter().rev().find(|s| **s < value).copied(),
    }
    .unwrap_or(value)
}

/// The `[player]` table as written.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct PlayerTable {
    model: Option<String>,
    colour_correction: Option<String>,
    rewind_mib: Option<u16>,
    fullscreen: Option<bool>,
    sound: Option<bool>,
    palette: Option<String>,
    scale: Option<String>,
    filter: Option<String>,
    volume: Option<u8>,
    mute: Option<bool>,
    audio_latency_ms: Option<u16>,
    fast_forward: Option<u8>,
    pause_on_focus_loss: Option<bool>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct File {
    player: PlayerTable,
}

fn enum_named<T: ValueEnum>(name: &str) -> Option<T> {
    T::from_str(name, true).ok()
}

/// How the command line and the file spell `value`.
pub(super) fn name_of<T: ValueEnum>(value: T) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
}

/// The palettes' names, for messages.
pub fn palette_names() -> String {
    DmgPalette::ALL.map(DmgPalette::name).join(", ")
}

/// `--palette`'s parser: a palette by its name.
pub fn parse_palette(name: &str) -> Result<DmgPalette, String> {
    DmgPalette::from_name(name).ok_or_else(|| format!("use {}", palette_names()))
}

fn step_enum<T: ValueEnum + PartialEq>(value: T, forward: bool) -> T {
    let all = T::value_variants();
    let at = all.iter().position(|v| *v == value).unwrap_or(0);
    let next = match forward {
        true => (at + 1) % all.len(),
        false => (at + all.len() - 1) % all.len(),
    };
    all[next].clone()
}

impl Settings {
    /// The settings in config-file text; a bad value is a warning and keeps its default.
    pub fn parse(text: &str) -> Settings {
        let mut settings = Settings::default();
        let table = match toml::from_str::<File>(text) {
            Ok(file) => file.player,
            Err(error) => {
                log::warn!("[player] settings not read: {}", error.message());
                return settings;
            }
        };
        if let Some(name) = table.model {
            match enum_named(&name) {
                Some(model) => settings.model = model,
                None => log::warn!("[player] model = {name:?}: use auto, dmg or cgb"),
            }
        }
        if let Some(name) = table.colour_correction {
            match enum_named(&name) {
                Some(correction) => settings.colour_correction = correction,
                None => log::warn!("[player] colour_correction = {name:?}: use off or lcd"),
            }
        }
        if let Some(mib) = table.rewind_mib {
            match mib <= super::MAX_REWIND_MIB {
                true => settings.rewind_mib = mib,
                false => log::warn!(
                    "[player] rewind_mib = {mib}: at most {}",
                    super::MAX_REWIND_MIB
                ),
            }
        }
        settings.fullscreen = table.fullscreen.unwrap_or(settings.fullscreen);
        settings.sound = table.sound.unwrap_or(settings.sound);
        if let Some(name) = table.palette {
            match DmgPalette::from_name(&name) {
                Some(palette) => settings.palette = palette,
                None => log::warn!("[player] palette = {name:?}: use {}", palette_names()),
            }
        }
        if let Some(name) = table.scale {
            match enum_named(&name) {
                Some(scale) => settings.view.scale = scale,
                None => log::warn!("[player] scale = {name:?}: use integer or fit"),
            }
        }
        if let Some(name) = table.filter {
            match enum_named(&name) {
                Some(filter) => settings.view.filter = filter,
                None => log::warn!("[player] filter = {name:?}: use nearest or linear"),
            }
        }
        if let Some(volume) = table.volume {
            match volume <= 100 {
                true => settings.volume = volume,
                false => log::warn!("[player] volume = {volume}: at most 100"),
            }
        }
        settings.mute = table.mute.unwrap_or(settings.mute);
        if let Some(ms) = table.audio_latency_ms {
            match LATENCY_RANGE.contains(&ms) {
                true => settings.audio_latency_ms = ms,
                false => log::warn!(
                    "[player] audio_latency_ms = {ms}: use {} to {}",
                    LATENCY_RANGE.start(),
                    LATENCY_RANGE.end()
                ),
            }
        }
        if let Some(speed) = table.fast_forward {
            match speed <= MAX_FAST_FORWARD && speed != 1 {
                true => settings.fast_forward = speed,
                false => log::warn!(
                    "[player] fast_forward = {speed}: use 2 to {MAX_FAST_FORWARD}, or 0 for unlimited"
                ),
            }
        }
        settings.pause_on_focus_loss = table
            .pause_on_focus_loss
            .unwrap_or(settings.pause_on_focus_loss);
        settings
    }

    /// The settings of the file at `path` (defaults when there is none).
    pub fn load(path: Option<&Path>) -> Settings {
        match path.map(std::fs::read_to_string) {
            Some(Ok(text)) => Settings::parse(&text),
            _ => Settings::default(),
        }
    }

    /// How the Settings page shows `setting`.
    pub fn label(&self, setting: Setting) -> String {
        let on_off = |on: bool| if on { "ON" } else { "OFF" };
        match setting {
            Setting::Model => format!("MODEL < {} >", name_of(self.model)),
            Setting::ColourCorrection => {
                format!("COLOUR CORRECTION < {} >", name_of(self.colour_correction))
            }
            Setting::RewindBudget => format!("REWIND BUDGET < {} MIB >", self.rewind_mib),
            Setting::Fullscreen => format!("FULLSCREEN < {} >", on_off(self.fullscreen)),
            Setting::Sound => format!("SOUND < {} >", on_off(self.sound)),
            Setting::Palette => format!("DMG PALETTE < {} >", self.palette.name()),
            Setting::Scale => format!("SCALE < {} >", name_of(self.view.scale)),
            Setting::Filter => format!("FILTER < {} >", name_of(self.view.filter)),
            Setting::Volume => format!("VOLUME < {} % >", self.volume),
            Setting::Mute => format!("MUTE < {} >", on_off(self.mute)),
            Setting::AudioLatency => format!("AUDIO LATENCY < {} MS >", self.audio_latency_ms),
            Setting::FastForward => match self.fast_forward {
                0 => "FAST-FORWARD < UNLIMITED >".to_string(),
                speed => format!("FAST-FORWARD < X{speed} >"),
            },
            Setting::PauseOnFocusLoss => {
                format!(
                    "PAUSE ON FOCUS LOSS < {} >",
                    on_off(self.pause_on_focus_loss)
                )
            }
        }
    }

    /// Moves `setting` to its next (or previous) value.
    pub fn step(&mut self, setting: Setting, forward: bool) {
        match setting {
            Setting::Model => self.model = step_enum(self.model, forward),
            Setting::ColourCorrection => {
                self.colour_correction = step_enum(self.colour_correction, forward)
            }
            Setting::RewindBudget => {
                self.rewind_mib = step_in(REWIND_STEPS, self.rewind_mib, forward)
            }
            Setting::Fullscreen => self.fullscreen = !self.fullscreen,
            Setting::Sound => self.sound = !self.sound,
            Setting::Palette => {
                let all = DmgPalette::ALL;
                let at = all.iter().position(|p| *p == self.palette).unwrap_or(0);
                let next = match forward {
                    true => at + 1,
                    false => at + all.len() - 1,
                };
                self.palette = all[next % all.len()];
            }
            Setting::Scale => self.view.scale = step_enum(self.view.scale, forward),
            Setting::Filter => self.view.filter = step_enum(self.view.filter, forward),
            Setting::Volume => {
                self.volume = match forward {
                    true => (self.volume + 10).min(100),
                    false => self.volume.saturating_sub(10),
                }
            }
            Setting::Mute => self.mute = !self.mute,
            Setting::AudioLatency => {
                self.audio_latency_ms = step_in(LATENCY_STEPS, self.audio_latency_ms, forward)
            }
            Setting::FastForward => {
                // Unlimited is the fastest, so it sorts last.
                let rank = |speed: u8| if speed == 0 { u8::MAX } else { speed };
                let ranks: Vec<u8> = FAST_FORWARD_STEPS.iter().map(|s| rank(*s)).collect();
                let next = step_in(&ranks, rank(self.fast_forward), forward);
                self.fast_forward = if next == u8::MAX { 0 } else { next };
            }
            Setting::PauseOnFocusLoss => self.pause_on_focus_loss = !self.pause_on_focus_loss,
        }
    }

    /// The key and value `setting` is written as.
    fn entry(&self, setting: Setting) -> (&'static str, toml_edit::Value) {
        match setting {
            Setting::Model => ("model", name_of(self.model).into()),
            Setting::ColourCorrection => {
                ("colour_correction", name_of(self.colour_correction).into())
            }
            Setting::RewindBudget => ("rewind_mib", i64::from(self.rewind_mib).into()),
            Setting::Fullscreen => ("fullscreen", self.fullscreen.into()),
            Setting::Sound => ("sound", self.sound.into()),
            Setting::Palette => ("palette", self.palette.name().into()),
            Setting::Scale => ("scale", name_of(self.view.scale).into()),
            Setting::Filter => ("filter", name_of(self.view.filter).into()),
            Setting::Volume => ("volume", i64::from(self.volume).into()),
            Setting::Mute => ("mute", self.mute.into()),
            Setting::AudioLatency => ("audio_latency_ms", i64::from(self.audio_latency_ms).into()),
            Setting::FastForward => ("fast_forward", i64::from(self.fast_forward).into()),
            Setting::PauseOnFocusLoss => ("pause_on_focus_loss", self.pause_on_focus_loss.into()),
        }
    }

    /// `text` with `setting`'s line set to this value, everything else kept.
    pub fn write_into(&self, text: &str, setting: Setting) -> Result<String, String> {
        let mut document: toml_edit::DocumentMut =
            text.parse().map_err(|e: toml_edit::TomlError| {
                format!("not valid TOML, so not rewritten: {}", e.message())
            })?;
        let table = document
            .entry("player")
            .or_insert_with(toml_edit::table)
            .as_table_mut()
            .ok_or("[player] is not a table")?;
        let (key, value) = self.entry(setting);
        set_value(table, key, value);
        Ok(document.to_string())
    }

    /// Writes `setting` into the file at `path` (atomically; created when missing).
    pub fn save(&self, path: &Path, setting: Setting) -> Result<(), String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => return Err(format!("{}: {}", path.display(), describe_io(&error))),
        };
        let text = self
            .write_into(&text, setting)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        write_atomic(path, text.as_bytes())
            .map_err(|error| format!("{}: {}", path.display(), describe_io(&error)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::scaling::{Filter, ScaleMode};

    #[test]
    fn a_change_rewrites_its_line_only() {
        let text = "# mine\n[keyboard]\na = [\"KeyS\"] # jump\n";
        let mut settings = Settings::parse(text);
        assert_eq!(settings, Settings::default());
        settings.step(Setting::Model, true);
        assert_eq!(settings.model, ModelArg::Dmg);
        let text = settings.write_into(text, Setting::Model).unwrap();
        assert_eq!(
            text,
            "# mine\n[keyboard]\na = [\"KeyS\"] # jump\n\n[player]\nmodel = \"dmg\"\n"
        );
        let text = text.replace("\"dmg\"", "\"dmg\" # for old games");
        settings.step(Setting::Model, true);
        settings.step(Setting::RewindBudget, false);
        let text = settings.write_into(&text, Setting::Model).unwrap();
        let text = settings.write_into(&text, Setting::RewindBudget).unwrap();
        assert!(text.ends_with("[player]\nmodel = \"cgb\" # for old games\nrewind_mib = 64\n"));
        let read = Settings::parse(&text);
        assert_eq!(read.model, ModelArg::Cgb);
        assert_eq!(read.rewind_mib, 64);
        assert_eq!(settings.label(Setting::Model), "MODEL < cgb >");
    }

    #[test]
    fn bad_values_keep_their_defaults() {
        let settings =
            Settings::parse("[player]\nmodel = \"gba\"\nrewind_mib = 9000\nsound = false\n");
        assert_eq!(settings.model, ModelArg::Auto);
        assert_eq!(settings.rewind_mib, 128);
        assert!(!settings.sound);
    }

    #[test]
    fn every_setting_steps_writes_and_reads_back() {
        let mut settings = Settings::default();
        let mine = "# mine\n[keyboard]\na = [\"KeyS\"] # jump\n";
        let mut text = mine.to_string();
        for setting in SETTINGS {
            let before = settings.label(*setting);
            // Volume and fast-forward start at their tops.
            let forward = !matches!(setting, Setting::Volume | Setting::FastForward);
            settings.step(*setting, forward);
            assert_ne!(settings.label(*setting), before, "{setting:?} moves");
            text = settings.write_into(&text, *setting).unwrap();
        }
        assert!(text.starts_with(mine), "{text}");
        assert_eq!(Settings::parse(&text), settings);
        assert_eq!(settings.palette, DmgPalette::Dmg);
        assert_eq!(settings.view.scale, ScaleMode::Fit);
        assert_eq!(settings.view.filter, Filter::Linear);
        assert_eq!(settings.volume, 90);
        assert_eq!(settings.audio_latency_ms, 80);
        assert_eq!(settings.label(Setting::FastForward), "FAST-FORWARD < X8 >");
        for _ in 0..4 {
            settings.step(Setting::FastForward, false);
        }
        assert_eq!(settings.label(Setting::FastForward), "FAST-FORWARD < X2 >");
        for _ in 0..5 {
            settings.step(Setting::FastForward, true);
        }
        assert_eq!(settings.fast_forward, 0, "unlimited is the last step");
        settings.step(Setting::Volume, false);
        assert_eq!(settings.label(Setting::Volume), "VOLUME < 80 % >");
    }

    #[test]
    fn bad_new_values_keep_their_defaults() {
        let settings = Settings::parse(
            "[player]\npalette = \"purple\"\nscale = \"stretch\"\nvolume = 150\naudio_latency_ms = 5\nfast_forward = 1\nfilter = \"linear\"\n",
        );
        let default = Settings::default();
        assert_eq!(settings.palette, default.palette);
        assert_eq!(settings.view.scale, default.view.scale);
        assert_eq!(settings.volume, default.volume);
        assert_eq!(settings.audio_latency_ms, default.audio_latency_ms);
        assert_eq!(settings.fast_forward, default.fast_forward);
        assert_eq!(settings.view.filter, Filter::Linear);
        assert_eq!(parse_palette("pocket"), Ok(DmgPalette::Pocket));
        assert!(
            parse_palette("x")
                .unwrap_err()
                .contains("grey, green, dmg, pocket")
        );
    }
}
