//! The player's settings: the `[player]` table of config.toml, changed from the menu's
//! Settings page. Each change rewrites only its own line with `toml_edit`, so the user's
//! comments, order and other tables stay as they were (the table is added at the end when
//! the file has none). A command-line option wins over the file for that run.

use super::config::rewrite::set_value;
use super::picture::ColourCorrection;
use crate::ModelArg;
use crate::battery::write_atomic;
use crate::error::describe_io;
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
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            model: ModelArg::Auto,
            colour_correction: ColourCorrection::Off,
            rewind_mib: 128,
            fullscreen: false,
            sound: true,
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
}

/// The Settings page's lines, in order.
pub const SETTINGS: &[Setting] = &[
    Setting::Model,
    Setting::ColourCorrection,
    Setting::RewindBudget,
    Setting::Fullscreen,
    Setting::Sound,
];

/// The rewind budgets Left/Right step through (MiB).
const REWIND_STEPS: &[u16] = &[0, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// The `[player]` table as written.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct PlayerTable {
    model: Option<String>,
    colour_correction: Option<String>,
    rewind_mib: Option<u16>,
    fullscreen: Option<bool>,
    sound: Option<bool>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct File {
    player: PlayerTable,
}

fn enum_named<T: ValueEnum>(name: &str) -> Option<T> {
    T::from_str(name, true).ok()
}

fn name_of<T: ValueEnum>(value: T) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
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
                let mib = self.rewind_mib;
                self.rewind_mib = match forward {
                    true => REWIND_STEPS.iter().find(|s| **s > mib).copied(),
                    false => REWIND_STEPS.iter().rev().find(|s| **s < mib).copied(),
                }
                .unwrap_or(mib);
            }
            Setting::Fullscreen => self.fullscreen = !self.fullscreen,
            Setting::Sound => self.sound = !self.sound,
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
}
