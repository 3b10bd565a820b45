//! The menu's file browser: one folder's sub-folders and Game Boy ROMs (`.gb`, `.gbc`,
//! `.zip`, any case), sorted by name, folders first, hidden files left out.

use crate::error::describe_io;
use std::path::{Path, PathBuf};

/// One line of the listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// The folder above.
    Parent,
    Folder(String),
    Rom(String),
}

impl Item {
    /// How the menu shows it.
    pub fn label(&self) -> String {
        match self {
            Item::Parent => "../".to_string(),
            Item::Folder(name) => format!("{name}/"),
            Item::Rom(name) => name.clone(),
        }
    }
}

/// A folder as listed.
#[derive(Clone, Debug)]
pub struct Folder {
    pub dir: PathBuf,
    pub items: Vec<Item>,
}

/// Whether the browser offers a file of this name.
pub fn is_rom_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".gb", ".gbc", ".zip"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

impl Folder {
    /// Lists `dir`; a folder that cannot be read is a one-line error.
    pub fn read(dir: &Path) -> Result<Folder, String> {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let entries = std::fs::read_dir(&dir)
            .map_err(|error| format!("{}: {}", dir.display(), describe_io(&error)))?;
        let mut folders = Vec::new();
        let mut roms = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            // Follows symbolic links, as a file dialog does.
            match std::fs::metadata(entry.path()) {
                Ok(meta) if meta.is_dir() => folders.push(name),
                Ok(meta) if meta.is_file() && is_rom_name(&name) => roms.push(name),
                _ => {}
            }
        }
        folders.sort_by_key(|name| name.to_lowercase());
        roms.sort_by_key(|name| name.to_lowercase());
        let parent = dir.parent().map(|_| Item::Parent);
        let items = parent
            .into_iter()
            .chain(folders.into_iter().map(Item::Folder))
            .chain(roms.into_iter().map(Item::Rom))
            .collect();
        Ok(Folder { dir, items })
    }

    /// Where choosing `item` leads: a folder to list, or a ROM to open.
    pub fn target(&self, item: &Item) -> PathBuf {
        match item {
            Item::Parent => self.dir.parent().unwrap_or(&self.dir).to_path_buf(),
            Item::Folder(name) | Item::Rom(name) => self.dir.join(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_first_then_roms_only() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.gb", "A.GBC", "c.zip", "notes.txt", ".hidden.gb", "d.sav"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let folder = Folder::read(dir.path()).unwrap();
        assert_eq!(
            folder.items,
            vec![
                Item::Parent,
                Item::Folder("sub".into()),
                Item::Rom("A.GBC".into()),
                Item::Rom("b.gb".into()),
                Item::Rom("c.zip".into()),
            ]
        );
        assert_eq!(folder.target(&Item::Parent), folder.dir.parent().unwrap());
        assert!(Folder::read(&dir.path().join("missing")).is_err());
    }
}
