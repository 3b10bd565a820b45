//! One source line of the first pass: an optional label, then a constant or variable
//! definition, a directive, or an instruction, each in its own function.

use crate::assembler::{Assembler, DataItem, StmtKind, split_args};
use crate::encode::{self, encode, parse_operand};
use crate::expr::{EvalContext, describe, qualify};
use crate::lexer::{Token, tokenize};
use crate::sources::{Loc, SourceLine};

impl Assembler {
    pub(crate) fn first_pass_line(&mut self, line: &SourceLine) -> Result<(), String> {
        let tokens = tokenize(&line.text)?;
        let rest = self.label(&tokens)?;
        if let Some(defined) = self.definition(rest) {
            return defined;
        }
        let [Token::Ident(word), args @ ..] = rest else {
            return match rest.first() {
                None => Ok(()),
                Some(t) => Err(format!(
                    "expected an instruction or directive, found {}",
                    describe(t)
                )),
            };
        };
        let loc = line.loc;
        let args = split_args(args)?;
        match word.to_ascii_uppercase().as_str() {
            "SECTION" => self.section(&args),
            "DB" => self.db(loc, &args),
            "DW" => self.dw(loc, &args),
            "DS" => self.ds(loc, &args),
            "INCBIN" => self.incbin(loc, &args),
            "ASSERT" => self.assert(loc, &args),
            "TITLE" => self.title(&args),
            "CART_TYPE" | "ROM_SIZE" | "RAM_SIZE" | "CGB_FLAG" => self.header_byte(word, &args),
            _ => self.instruction(loc, word, &args),
        }
    }

    /// Defines the line's label, if it starts with one (`name:`, `name::`, `.local:` or
    /// `.local` alone), and returns the rest of the line.
    fn label<'t>(&mut self, tokens: &'t [Token]) -> Result<&'t [Token], String> {
        let (name, rest) = match tokens {
            [
                Token::Ident(name),
                Token::Colon | Token::DoubleColon,
                tail @ ..,
            ] => (name.clone(), tail),
            [Token::Ident(name)] if name.starts_with('.') => (name.clone(), &[][..]),
            _ => return Ok(tokens),
        };
        let full = qualify(&name, &self.scope)?;
        if !name.starts_with('.') {
            if name.contains('.') {
                return Err(format!("label `{name}` may not contain `.`"));
            }
            self.scope = name;
        }
        let (index, addr) = self.here()?;
        self.labels.push((full.clone(), index));
        let (floating, start) = (self.sections[index].floating, self.sections[index].start);
        if floating {
            // Its address is known once the section is placed.
            self.define(full.clone(), 0)?;
            self.symbols.remove(&full);
            self.floating_labels.push((full, index, addr - start));
        } else {
            self.define(full, i64::from(addr))?;
        }
        Ok(rest)
    }

    /// Constants and variables: `NAME EQU expr`, `NAME = expr`, `DEF NAME EQU expr`,
    /// `DEF NAME = expr`. `None` when the line is none of these.
    fn definition(&mut self, tokens: &[Token]) -> Option<Result<(), String>> {
        let (name, op, value) = match tokens {
            [Token::Ident(d), Token::Ident(name), op, value @ ..]
                if d.eq_ignore_ascii_case("def") =>
            {
                (name, op, value)
            }
            [Token::Ident(name), op, value @ ..] => (name, op, value),
            _ => return None,
        };
        let is_equ = matches!(op, Token::Ident(e) if e.eq_ignore_ascii_case("equ"));
        if !is_equ && *op != Token::Op("=") {
            return None;
        }
        Some(self.define_value(name, is_equ, value))
    }

    fn define_value(&mut self, name: &str, is_equ: bool, value: &[Token]) -> Result<(), String> {
        let value = self.constant(value)?;
        let name = qualify(name, &self.scope)?;
        if is_equ {
            if self.variables.contains_key(&name) {
                return Err(format!("`{name}` is a variable (defined with `=`)"));
            }
            return self.define(name, value);
        }
        if self.symbols.contains_key(&name) || encode::is_reserved(&name) {
            return Err(format!("`{name}` is already a constant or label"));
        }
        self.variables.insert(name, value);
        Ok(())
    }

    /// `db`: numbers (one byte each) and strings.
    fn db(&mut self, loc: Loc, args: &[&[Token]]) -> Result<(), String> {
        let mut items = Vec::new();
        let mut size = 0u32;
        for arg in args {
            match arg {
                [Token::Str(s)] => {
                    size += s.len() as u32;
                    items.push(DataItem::Bytes(s.as_bytes().to_vec()));
                }
                _ => {
                    size += 1;
                    items.push(DataItem::Expr(self.parse_expr(arg)?));
                }
            }
        }
        if items.is_empty() {
            return Err("`db` needs at least one value".into());
        }
        self.push(loc, StmtKind::Db(items), size)
    }

    /// `dw`: little-endian words.
    fn dw(&mut self, loc: Loc, args: &[&[Token]]) -> Result<(), String> {
        let exprs = args
            .iter()
            .map(|arg| self.parse_expr(arg))
            .collect::<Result<Vec<_>, _>>()?;
        if exprs.is_empty() {
            return Err("`dw` needs at least one value".into());
        }
        let size = 2 * exprs.len() as u32;
        self.push(loc, StmtKind::Dw(exprs), size)
    }

    /// `ds count[, fill]`: filled bytes in ROM, reserved space in RAM.
    fn ds(&mut self, loc: Loc, args: &[&[Token]]) -> Result<(), String> {
        let (count, fill) = match args {
            [count] => (self.constant(count)?, None),
            [count, fill] => (self.constant(count)?, Some(self.parse_expr(fill)?)),
            _ => return Err("`ds` takes a count and an optional fill byte".into()),
        };
        let count = u32::try_from(count)
            .ok()
            .filter(|c| *c <= 0x10000)
            .ok_or_else(|| format!("`ds` count {count} is out of range"))?;
        let (section, _) = self.here()?;
        if self.sections[section].kind.holds_data() {
            self.push(loc, StmtKind::Ds { count, fill }, count)
        } else if fill.is_some() {
            Err("a RAM section cannot be filled; use `ds count`".into())
        } else {
            self.advance(count)
        }
    }

    /// `INCBIN "file"[, start[, length]]`, the path relative to the including file.
    fn incbin(&mut self, loc: Loc, args: &[&[Token]]) -> Result<(), String> {
        let (file, start, length) = match args {
            [[Token::Str(f)]] => (f, None, None),
            [[Token::Str(f)], s] => (f, Some(self.constant(s)?), None),
            [[Token::Str(f)], s, l] => (f, Some(self.constant(s)?), Some(self.constant(l)?)),
            _ => {
                return Err(
                    "`INCBIN` takes a quoted file name, then optional start and length".into(),
                );
            }
        };
        let dir = self.sources.dirs[loc.file].clone().unwrap_or_default();
        let path = dir.join(file);
        self.sources.files.push(path.clone());
        let data =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let start = start.unwrap_or(0);
        let length = length.unwrap_or(data.len() as i64 - start);
        let slice = usize::try_from(start)
            .ok()
            .zip(usize::try_from(length).ok())
            .and_then(|(s, l)| data.get(s..s.checked_add(l)?))
            .ok_or_else(|| {
                format!(
                    "`INCBIN` range is outside the {} bytes of {}",
                    data.len(),
                    path.display()
                )
            })?;
        let size = slice.len() as u32;
        self.push(loc, StmtKind::Bytes(slice.to_vec()), size)
    }

    /// `ASSERT expr[, "message"]`: checked in the second pass inside a section, at once
    /// outside any.
    fn assert(&mut self, loc: Loc, args: &[&[Token]]) -> Result<(), String> {
        let (condition, message) = match args {
            [c] => (c, None),
            [c, [Token::Str(m)]] => (c, Some(m.clone())),
            _ => {
                return Err("`ASSERT` takes a condition and an optional quoted message".into());
            }
        };
        let condition = self.parse_expr(condition)?;
        if self.current.is_some() {
            return self.push(loc, StmtKind::Assert { condition, message }, 0);
        }
        let ok = condition.eval(&self.strict(0))?;
        match (ok, message) {
            (0, Some(m)) => Err(format!("assertion failed: {m}")),
            (0, None) => Err("assertion failed".into()),
            _ => Ok(()),
        }
    }

    /// `TITLE "..."`: the header's title.
    fn title(&mut self, args: &[&[Token]]) -> Result<(), String> {
        match args {
            [[Token::Str(title)]] if title.len() <= 16 && title.is_ascii() => {
                self.header.title = Some(title.as_bytes().to_vec());
                self.check_title_fits()
            }
            _ => Err("`TITLE` takes a quoted ASCII title of at most 16 characters".into()),
        }
    }

    /// `CART_TYPE`, `ROM_SIZE`, `RAM_SIZE` and `CGB_FLAG`: one header byte each.
    fn header_byte(&mut self, word: &str, args: &[&[Token]]) -> Result<(), String> {
        let [value] = args else {
            return Err(format!("`{word}` takes one value"));
        };
        let value = self.constant(value)?;
        let byte =
            u8::try_from(value).map_err(|_| format!("`{word}` value {value} is not a byte"))?;
        let field = match word.to_ascii_uppercase().as_str() {
            "CART_TYPE" => &mut self.header.cart_type,
            "CGB_FLAG" => &mut self.header.cgb_flag,
            "ROM_SIZE" => {
                if byte > 8 {
                    return Err(format!("`ROM_SIZE` code {byte} is not 0-8"));
                }
                &mut self.header.rom_size
            }
            _ => &mut self.header.ram_size,
        };
        *field = Some(byte);
        self.check_title_fits()
    }

    /// A 16-character title runs into $0143, the CGB flag's byte.
    fn check_title_fits(&self) -> Result<(), String> {
        let title_len = self.header.title.as_ref().map_or(0, Vec::len);
        if self.header.cgb_flag.is_some() && title_len > 15 {
            return Err(
                "with `CGB_FLAG` the title has at most 15 characters ($0143 is the flag)".into(),
            );
        }
        Ok(())
    }

    /// An instruction: its size is known now (unknown symbols count as placeholders), its
    /// bytes in the second pass.
    fn instruction(&mut self, loc: Loc, word: &str, args: &[&[Token]]) -> Result<(), String> {
        let operands = args
            .iter()
            .map(|arg| parse_operand(arg, &self.names()))
            .collect::<Result<Vec<_>, _>>()?;
        let (_, addr) = self.here()?;
        let lenient = EvalContext {
            symbols: &self.symbols,
            here: i64::from(addr),
            lenient: true,
        };
        let size = encode(word, &operands, &lenient)?.len() as u32;
        let kind = StmtKind::Instruction {
            mnemonic: word.to_string(),
            operands,
        };
        self.push(loc, kind, size)
    }
}
