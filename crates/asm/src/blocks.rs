//! The first pass over source lines, expanding `REPT`/`ENDR` and `IF`/`ELSE`/`ENDC`
//! blocks; every other line goes to the directives (`directives.rs`).

use crate::AsmError;
use crate::assembler::Assembler;
use crate::lexer::{Token, tokenize};
use crate::sources::SourceLine;

/// Bounds on `REPT` expansion, so no source makes the assembler run away.
const MAX_LINES_RUN: u64 = 4_000_000;
const MAX_BLOCK_DEPTH: u32 = 64;

impl Assembler {
    /// First pass over `lines`, expanding `REPT`/`ENDR` and `IF`/`ELSE`/`ENDC` blocks.
    pub(crate) fn run_lines(&mut self, lines: &[SourceLine]) -> Result<(), AsmError> {
        self.block_depth += 1;
        let result = self.run_lines_inner(lines);
        self.block_depth -= 1;
        result
    }

    pub(crate) fn run_lines_inner(&mut self, lines: &[SourceLine]) -> Result<(), AsmError> {
        let mut i = 0;
        while i < lines.len() {
            let line = &lines[i];
            self.lines_run += 1;
            if self.lines_run > MAX_LINES_RUN || self.block_depth > MAX_BLOCK_DEPTH {
                return Err(self.sources.error(
                    line.loc,
                    format!(
                        "`REPT`/`IF` blocks expand past {MAX_LINES_RUN} lines or nest past \
                         {MAX_BLOCK_DEPTH} levels"
                    ),
                ));
            }
            let file = &self.sources.names[line.loc.file].clone();
            let fail = |message: String| AsmError {
                file: file.clone(),
                line: line.loc.line,
                message,
            };
            let tokens = tokenize(&line.text).map_err(fail)?;
            let block = match tokens.first() {
                Some(Token::Ident(w)) => w.to_ascii_uppercase(),
                _ => String::new(),
            };
            match block.as_str() {
                "REPT" | "IF" => {
                    let (middle, end) = find_block_end(lines, i).map_err(fail)?;
                    let value = self.constant(&tokens[1..]).map_err(fail)?;
                    if block == "REPT" {
                        let count = u32::try_from(value)
                            .ok()
                            .filter(|c| *c <= 0x10000)
                            .ok_or_else(|| fail(format!("`REPT` count {value} is out of range")))?;
                        if middle.is_some() {
                            return Err(fail("`ELSE` inside `REPT`".into()));
                        }
                        for _ in 0..count {
                            self.run_lines(&lines[i + 1..end])?;
                        }
                    } else {
                        let split = middle.unwrap_or(end);
                        if value != 0 {
                            self.run_lines(&lines[i + 1..split])?;
                        } else if let Some(m) = middle {
                            self.run_lines(&lines[m + 1..end])?;
                        }
                    }
                    i = end + 1;
                }
                "ENDR" | "ENDC" | "ELSE" => {
                    return Err(fail(format!("`{block}` without its `REPT` or `IF`")));
                }
                _ => {
                    self.first_pass_line(line).map_err(fail)?;
                    i += 1;
                }
            }
        }
        Ok(())
    }
}

/// For the `REPT` or `IF` at `lines[start]`: the line of its own `ELSE` (if any) and of
/// its `ENDR`/`ENDC`, skipping nested blocks.
fn find_block_end(lines: &[SourceLine], start: usize) -> Result<(Option<usize>, usize), String> {
    let mut depth = 0;
    let mut middle = None;
    for (i, line) in lines.iter().enumerate().skip(start) {
        let word = match tokenize(&line.text).ok().as_deref() {
            Some([Token::Ident(w), ..]) => w.to_ascii_uppercase(),
            _ => continue,
        };
        match word.as_str() {
            "REPT" | "IF" => depth += 1,
            "ELSE" if depth == 1 => middle = Some(i),
            "ENDR" | "ENDC" => {
                depth -= 1;
                if depth == 0 {
                    let opener = if word == "ENDR" { "REPT" } else { "IF" };
                    let first = tokenize(&lines[start].text).unwrap_or_default();
                    if !matches!(first.first(), Some(Token::Ident(w)) if w.eq_ignore_ascii_case(opener))
                    {
                        return Err(format!(
                            "`{word}` closes a block it does not match (line {})",
                            line.loc.line
                        ));
                    }
                    return Ok((middle, i));
                }
            }
            _ => {}
        }
    }
    Err("block is never closed (missing `ENDR` or `ENDC`)".into())
}
