//! User-facing errors: one line, `<what> (<path>)`, printed as `error: ...` by `main`.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct CliError {
    pub what: String,
    pub path: Option<PathBuf>,
}

impl CliError {
    pub fn new(what: impl Into<String>, path: &Path) -> CliError {
        CliError {
            what: what.into(),
            path: Some(path.to_path_buf()),
        }
    }

    pub fn without_path(what: impl Into<String>) -> CliError {
        CliError {
            what: what.into(),
            path: None,
        }
    }

    /// `cannot read <thing>: <short reason>` for an I/O error on `path`.
    pub fn io(action: &str, error: &std::io::Error, path: &Path) -> CliError {
        CliError::new(format!("{action}: {}", describe_io(error)), path)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{} ({})", self.what, path.display()),
            None => f.write_str(&self.what),
        }
    }
}

/// A short reason without the `(os error N)` suffix for the common cases.
pub fn describe_io(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::NotFound => "no such file".into(),
        ErrorKind::PermissionDenied => "permission denied".into(),
        ErrorKind::IsADirectory => "is a directory".into(),
        _ => error.to_string(),
    }
}

/// Reads a user-named file, refusing directories and absurd sizes before reading.
pub fn read_user_file(kind: &str, path: &Path, max_bytes: u64) -> Result<Vec<u8>, CliError> {
    let action = format!("cannot read {kind}");
    let metadata = std::fs::metadata(path).map_err(|e| CliError::io(&action, &e, path))?;
    if metadata.is_dir() {
        return Err(CliError::new(format!("{action}: is a directory"), path));
    }
    if metadata.len() > max_bytes {
        return Err(CliError::new(
            format!(
                "{kind} is {} bytes, more than the {max_bytes} a Game Boy file can be",
                metadata.len()
            ),
            path,
        ));
    }
    std::fs::read(path).map_err(|e| CliError::io(&action, &e, path))
}
