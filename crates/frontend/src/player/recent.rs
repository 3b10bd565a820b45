//! Recent games: the last [`MAX_RECENT`] ROMs played in the window, newest first, and the
//! folder the file browser last opened a game from. Kept in `recent.toml` in the data
//! directory, written atomically; a file that cannot be read is a warning and an empty
//! list, never an error that stops the player.

use super::slots::{self, Slots};
use crate::battery::{unix_now, write_atomic};
use crate::error::describe_io;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How many games the list keeps.
pub const MAX_RECENT: usize = 20;

/// The file's contents.
#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
pub struct Recent {
    /// Where the file browser opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_folder: Option<PathBuf>,
    #[serde(default, rename = "game")]
    pub games: Vec<RecentGame>,
}

/// One game, as last played.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RecentGame {
    /// The ROM (or zip) file, absolute.
    pub path: PathBuf,
    pub title: String,
    /// The model it was emulated as ("Dmg", "Cgb").
    pub model: String,
    /// When it was last opened (Unix seconds).
    pub played_at: u64,
    /// Its slot folder, whose `resume.state` holds the picture of where it stopped.
    pub states: PathBuf,
}

impl RecentGame {
    /// The picture of the resume point, scaled down by `scale` (RGBA), if there is one.
    pub fn picture(&self, scale: usize) -> Option<Vec<u8>> {
        Slots::new(self.states.clone()).resume_thumbnail(scale)
    }
}

fn file(data_dir: &Path) -> PathBuf {
    data_dir.join("recent.toml")
}

impl Recent {
    /// The list in `data_dir` (empty when there is none yet, or with a warning when it
    /// cannot be read).
    pub fn load(data_dir: &Path) -> Recent {
        let path = file(data_dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Recent::default(),
            Err(error) => {
                log::warn!("{}: {}", path.display(), describe_io(&error));
                return Recent::default();
            }
        };
        toml::from_str(&text).unwrap_or_else(|error| {
            log::warn!(
                "{}: not a recent-games list ({error}); starting a new one",
                path.display()
            );
            Recent::default()
        })
    }

    pub fn save(&self, data_dir: &Path) -> Result<(), String> {
        let path = file(data_dir);
        let text = toml::to_string(self).map_err(|e| format!("{}: {e}", path.display()))?;
        std::fs::create_dir_all(data_dir)
            .and_then(|()| write_atomic(&path, text.as_bytes()))
            .map_err(|error| format!("{}: {}", path.display(), describe_io(&error)))
    }

    /// Puts `game` first (once: an older entry for the same file goes), keeping the newest
    /// [`MAX_RECENT`].
    pub fn played(&mut self, game: RecentGame) {
        self.games.retain(|old| old.path != game.path);
        self.games.insert(0, game);
        self.games.truncate(MAX_RECENT);
    }
}

/// Records that the ROM at `path` is being played (title, model, slot folder) and, when it
/// was picked in the file browser, its folder. Failures are warnings.
pub fn remember(path: &Path, title: &str, model: &str, slots: Option<&Slots>, browsed: bool) {
    let Some(data_dir) = slots::data_dir() else {
        return;
    };
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut recent = Recent::load(&data_dir);
    if browsed {
        recent.last_folder = path.parent().map(Path::to_path_buf);
    }
    if let Some(slots) = slots {
        recent.played(RecentGame {
            path,
            title: title.to_string(),
            model: model.to_string(),
            played_at: unix_now(),
            states: slots.dir().to_path_buf(),
        });
    }
    if let Err(error) = recent.save(&data_dir) {
        log::warn!("recent games not saved: {error}");
    }
}

/// Removes the entry for `path` from the list in the data directory.
pub fn forget(path: &Path) {
    let Some(data_dir) = slots::data_dir() else {
        return;
    };
    let mut recent = Recent::load(&data_dir);
    recent.games.retain(|game| game.path != path);
    if let Err(error) = recent.save(&data_dir) {
        log::warn!("recent games not saved: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(n: usize) -> RecentGame {
        RecentGame {
            path: PathBuf::from(format!("/roms/{n}.gb")),
            title: format!("GAME {n}"),
            model: "Dmg".into(),
            played_at: n as u64,
            states: PathBuf::from("/nowhere"),
        }
    }

    #[test]
    fn newest_first_once_each_twenty_kept_and_saved() {
        let dir = tempfile::tempdir().unwrap();
        let mut recent = Recent::load(dir.path());
        assert_eq!(recent, Recent::default());
        for n in 0..25 {
            recent.played(game(n));
        }
        recent.played(game(10));
        assert_eq!(recent.games.len(), MAX_RECENT);
        assert_eq!(recent.games[0], game(10));
        assert_eq!(recent.games[1], game(24));
        assert_eq!(recent.games.iter().filter(|g| **g == game(10)).count(), 1);
        recent.last_folder = Some(PathBuf::from("/roms"));
        recent.save(dir.path()).unwrap();
        assert_eq!(Recent::load(dir.path()), recent);
        assert_eq!(game(3).picture(4), None, "no resume point, no picture");
        std::fs::write(dir.path().join("recent.toml"), "game = 3").unwrap();
        assert_eq!(
            Recent::load(dir.path()),
            Recent::default(),
            "a bad file is a warning"
        );
    }
}
