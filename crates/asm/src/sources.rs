//! Source text: files, their lines, and `INCLUDE` expanded in place (from beside the
//! including file, else the built-in files).

use crate::AsmError;
use crate::lexer::{Token, tokenize};
use std::path::{Path, PathBuf};

/// Files `INCLUDE` finds when no file of that name is beside the including file.
pub const BUILTIN_INCLUDES: &[(&str, &str)] =
    &[("hardware.inc", include_str!("../include/hardware.inc"))];

/// Where a statement came from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Loc {
    pub(crate) file: usize,
    pub(crate) line: u32,
}

pub(crate) struct SourceLine {
    pub(crate) loc: Loc,
    pub(crate) text: String,
}

#[derive(Default)]
pub(crate) struct Sources {
    /// Display names, indexed by `Loc::file`.
    pub(crate) names: Vec<String>,
    /// Directory each file's relative paths start from (`None` for built-in files).
    pub(crate) dirs: Vec<Option<PathBuf>>,
    pub(crate) lines: Vec<SourceLine>,
    /// Files read for `INCLUDE` and `INCBIN`.
    pub(crate) files: Vec<PathBuf>,
}

impl Sources {
    pub(crate) fn error(&self, loc: Loc, message: impl Into<String>) -> AsmError {
        AsmError {
            file: self.names[loc.file].clone(),
            line: loc.line,
            message: message.into(),
        }
    }

    /// Appends `text` (from `name`), expanding `INCLUDE` lines in place.
    pub(crate) fn add(
        &mut self,
        text: &str,
        name: String,
        dir: Option<PathBuf>,
        depth: u32,
    ) -> Result<(), AsmError> {
        let file = self.names.len();
        self.names.push(name);
        self.dirs.push(dir.clone());
        for (index, line) in text.lines().enumerate() {
            let loc = Loc {
                file,
                line: index as u32 + 1,
            };
            if let Ok(tokens) = tokenize(line)
                && let [Token::Ident(directive), rest @ ..] = tokens.as_slice()
                && directive.eq_ignore_ascii_case("include")
            {
                let [Token::Str(target)] = rest else {
                    return Err(self.error(loc, "`INCLUDE` takes one quoted file name"));
                };
                if depth >= 32 {
                    return Err(self.error(loc, "`INCLUDE` nested more than 32 deep (a cycle?)"));
                }
                let (text, name, dir) = self.find_include(loc, target, dir.as_deref())?;
                if dir.is_some() {
                    self.files.push(PathBuf::from(&name));
                }
                self.add(&text, name, dir, depth + 1)?;
                continue;
            }
            self.lines.push(SourceLine {
                loc,
                text: line.to_string(),
            });
        }
        Ok(())
    }

    pub(crate) fn find_include(
        &self,
        loc: Loc,
        target: &str,
        dir: Option<&Path>,
    ) -> Result<(String, String, Option<PathBuf>), AsmError> {
        if let Some(dir) = dir {
            let path = dir.join(target);
            if path.exists() {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| self.error(loc, format!("cannot read {}: {e}", path.display())))?;
                let parent = path.parent().map(Path::to_path_buf);
                return Ok((text, path.display().to_string(), parent));
            }
        }
        match BUILTIN_INCLUDES.iter().find(|(name, _)| *name == target) {
            Some((name, text)) => Ok((text.to_string(), format!("<builtin>/{name}"), None)),
            None => Err(self.error(loc, format!("include file \"{target}\" not found"))),
        }
    }
}
