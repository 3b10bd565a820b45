//! An SM83 assembler for building our own ROMs from source (`roms-test/`, `assets/demo/`).
//!
//! The syntax follows RGBDS closely enough that its manual describes it:
//! - labels `name:` (or `name::`), local labels `.name` scoped to the previous global
//!   label (reachable elsewhere as `Global.name`);
//! - constants `NAME EQU expr` / `DEF NAME EQU expr`, and variables `NAME = expr` /
//!   `DEF NAME = expr` that may be redefined (a use takes the value on that line);
//! - `db` (numbers and strings), `dw`, `ds count[, fill]`, `INCLUDE "file"`,
//!   `INCBIN "file"[, start[, length]]`, `ASSERT expr[, "message"]`, `REPT n` .. `ENDR`,
//!   `IF expr` .. [`ELSE` ..] `ENDC`;
//! - `SECTION "name", TYPE[$address], BANK[n]`, address and bank optional, TYPE one of
//!   ROM0, ROMX, VRAM, SRAM, WRAM0, WRAMX, OAM, HRAM (RAM types only reserve with `ds`). A
//!   section without an address floats: after the first pass it goes into the lowest gap of
//!   its type and bank that fits (ROM0: from $0150, clear of the vectors and header);
//! - expressions: `+ - * / % & | ^ << >> ~ !`, comparisons, `&& ||`, parentheses, `$hex`,
//!   `%bin`, `0x`, `0b`, decimal, `'c'` and one-character strings, `HIGH()`, `LOW()`, and
//!   `@` for the address of the current instruction.
//!
//! Mnemonics, registers and directives are case-insensitive; symbols are not. Operands
//! are what the CPU disassembler prints (`backspin_core::disassemble`): `ld a, [hl+]`,
//! `ldh [$XX], a`, `ldh [c], a`, `ld hl, sp+$XX`, `add sp, -$XX`, `jr $XXXX` (absolute
//! target), `rst $38`, `db $D3`; also `[hli]`/`[hld]`, `ldi`/`ldd`, `[$FF00+c]`, `jp [hl]`,
//! ALU forms without `a, `. `stop` assembles to `10 00`.
//!
//! After assembly the cartridge header is filled in: Nintendo logo, title (`TITLE "..."`),
//! cartridge type (`CART_TYPE n`), ROM size (from the highest bank used, or `ROM_SIZE
//! code`), RAM size (`RAM_SIZE code`), CGB flag at $0143 (`CGB_FLAG $80` or `$C0`; the
//! title then has at most 15 characters), header checksum and global checksum. Bytes placed
//! in $0104-$014F are an error: the header is the assembler's.
//!
//! `INCLUDE` and `INCBIN` paths are relative to the file containing them; `INCLUDE` then
//! falls back to the built-in files ([`BUILTIN_INCLUDES`]: `hardware.inc`, register names
//! as in Pan Docs). Errors carry `file:line` ([`AsmError`]).

mod encode;
mod expr;
mod header;
mod lexer;

use encode::{Operand, encode, parse_operand, value8, value16};
use expr::{EvalContext, Expr, ExprParser, Scope, describe, qualify};
use lexer::{Token, tokenize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// An assembly error at a source position. Displays as `file:line: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    pub file: String,
    /// 1-based; 0 when the error concerns the whole file (it could not be read).
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for AsmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

impl std::error::Error for AsmError {}

/// Bounds on `REPT` expansion, so no source makes the assembler run away.
const MAX_LINES_RUN: u64 = 4_000_000;
const MAX_BLOCK_DEPTH: u32 = 64;

/// Files `INCLUDE` finds when no file of that name is beside the including file.
pub const BUILTIN_INCLUDES: &[(&str, &str)] =
    &[("hardware.inc", include_str!("../include/hardware.inc"))];

/// A finished ROM and the symbols that went into it.
#[derive(Debug, Clone)]
pub struct Assembled {
    pub rom: Vec<u8>,
    /// Every label and constant; banked labels hold their CPU address.
    pub symbols: BTreeMap<String, i64>,
    /// Every file read (the source, its includes and binaries, not built-in includes): a
    /// build script prints `cargo:rerun-if-changed=` for each.
    pub files: Vec<PathBuf>,
}

/// Assembles the file at `path` into a ROM image with its header filled in.
pub fn assemble_file(path: impl AsRef<Path>) -> Result<Vec<u8>, AsmError> {
    assemble_file_with_symbols(path).map(|a| a.rom)
}

/// Like [`assemble_file`], keeping the symbol table (tests use it to find variables).
pub fn assemble_file_with_symbols(path: impl AsRef<Path>) -> Result<Assembled, AsmError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| AsmError {
        file: name.clone(),
        line: 0,
        message: format!("cannot read: {e}"),
    })?;
    let mut assembled = assemble_source(&text, &name, path, Mode::Rom)?;
    assembled.files.insert(0, path.to_path_buf());
    Ok(assembled)
}

/// For build scripts: assembles `source` (relative to the crate being built) into
/// `$OUT_DIR/out_name` and tells cargo to rebuild when any file it read changes. Panics
/// with the assembler's message on failure (a build script reports errors that way).
pub fn embed_for_build_script(source: &str, out_name: &str) {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let source = manifest_dir.join(source);
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed={}", source.display());
    let assembled = match assemble_file_with_symbols(&source) {
        Ok(assembled) => assembled,
        Err(error) => panic!("{} does not assemble: {error}", source.display()),
    };
    for file in &assembled.files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    std::fs::write(out_dir.join(out_name), &assembled.rom).expect("OUT_DIR is writable");
}

/// Assembles `source` into a ROM image; `name` names it in errors and is the base for
/// relative `INCLUDE`/`INCBIN` paths.
pub fn assemble_str(source: &str, name: &str) -> Result<Vec<u8>, AsmError> {
    assemble_source(source, name, Path::new(name), Mode::Rom).map(|a| a.rom)
}

/// Assembles `source` as raw code placed at `origin` (no sections needed, no header) and
/// returns only the bytes it produced: for tests and disassembler round trips.
pub fn assemble_snippet(source: &str, origin: u16) -> Result<Vec<u8>, AsmError> {
    assemble_source(source, "<snippet>", Path::new(""), Mode::Snippet(origin)).map(|a| a.rom)
}

#[derive(Clone, Copy)]
enum Mode {
    Rom,
    Snippet(u16),
}

/// Where a statement came from.
#[derive(Clone, Copy, Debug)]
struct Loc {
    file: usize,
    line: u32,
}

struct SourceLine {
    loc: Loc,
    text: String,
}

struct Sources {
    /// Display names, indexed by `Loc::file`.
    names: Vec<String>,
    /// Directory each file's relative paths start from (`None` for built-in files).
    dirs: Vec<Option<PathBuf>>,
    lines: Vec<SourceLine>,
    /// Files read for `INCLUDE` and `INCBIN`.
    files: Vec<PathBuf>,
}

impl Sources {
    fn error(&self, loc: Loc, message: impl Into<String>) -> AsmError {
        AsmError {
            file: self.names[loc.file].clone(),
            line: loc.line,
            message: message.into(),
        }
    }

    /// Appends `text` (from `name`), expanding `INCLUDE` lines in place.
    fn add(
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

    fn find_include(
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Rom0,
    Romx,
    Vram,
    Sram,
    Wram0,
    Wramx,
    Oam,
    Hram,
    /// A snippet: any address, no header.
    Raw,
}

impl Kind {
    fn parse(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_uppercase().as_str() {
            "ROM0" => Kind::Rom0,
            "ROMX" => Kind::Romx,
            "VRAM" => Kind::Vram,
            "SRAM" => Kind::Sram,
            "WRAM0" => Kind::Wram0,
            "WRAMX" => Kind::Wramx,
            "OAM" => Kind::Oam,
            "HRAM" => Kind::Hram,
            _ => return None,
        })
    }

    /// The CPU address range, inclusive.
    fn range(self) -> (u32, u32) {
        match self {
            Kind::Rom0 => (0x0000, 0x3FFF),
            Kind::Romx => (0x4000, 0x7FFF),
            Kind::Vram => (0x8000, 0x9FFF),
            Kind::Sram => (0xA000, 0xBFFF),
            Kind::Wram0 => (0xC000, 0xCFFF),
            Kind::Wramx => (0xD000, 0xDFFF),
            Kind::Oam => (0xFE00, 0xFE9F),
            Kind::Hram => (0xFF80, 0xFFFE),
            Kind::Raw => (0x0000, 0xFFFF),
        }
    }

    /// Where floating sections may start: ROM0 ones stay clear of the vectors and header.
    fn floating_low(self) -> u32 {
        match self {
            Kind::Rom0 => 0x150,
            _ => self.range().0,
        }
    }

    /// Whether the section's bytes end up in the ROM image.
    fn holds_data(self) -> bool {
        matches!(self, Kind::Rom0 | Kind::Romx | Kind::Raw)
    }
}

struct Section {
    name: String,
    kind: Kind,
    bank: u32,
    start: u32,
    size: u32,
    /// No address given: placed after the first pass, in the first gap that fits.
    floating: bool,
}

enum DataItem {
    Expr(Expr),
    Bytes(Vec<u8>),
}

enum StmtKind {
    Instruction {
        mnemonic: String,
        operands: Vec<Operand>,
    },
    Db(Vec<DataItem>),
    Dw(Vec<Expr>),
    Ds {
        count: u32,
        fill: Option<Expr>,
    },
    Bytes(Vec<u8>),
    Assert {
        condition: Expr,
        message: Option<String>,
    },
}

struct Stmt {
    loc: Loc,
    section: usize,
    /// From the section's start (floating sections move after the first pass).
    offset: u32,
    kind: StmtKind,
}

#[derive(Default)]
struct HeaderFields {
    title: Option<Vec<u8>>,
    cart_type: Option<u8>,
    rom_size: Option<u8>,
    ram_size: Option<u8>,
    cgb_flag: Option<u8>,
}

struct Assembler {
    sources: Sources,
    symbols: HashMap<String, i64>,
    sections: Vec<Section>,
    current: Option<usize>,
    scope: String,
    variables: HashMap<String, i64>,
    /// Labels in floating sections: (name, section, offset), defined once placed.
    floating_labels: Vec<(String, usize, u32)>,
    /// Lines processed so far and `REPT`/`IF` nesting, both bounded.
    lines_run: u64,
    block_depth: u32,
    stmts: Vec<Stmt>,
    header: HeaderFields,
}

fn assemble_source(
    source: &str,
    name: &str,
    path: &Path,
    mode: Mode,
) -> Result<Assembled, AsmError> {
    let mut sources = Sources {
        names: Vec::new(),
        dirs: Vec::new(),
        lines: Vec::new(),
        files: Vec::new(),
    };
    let dir = path.parent().map(Path::to_path_buf);
    sources.add(source, name.to_string(), dir, 0)?;
    let mut asm = Assembler {
        sources,
        symbols: HashMap::new(),
        sections: Vec::new(),
        current: None,
        scope: String::new(),
        variables: HashMap::new(),
        floating_labels: Vec::new(),
        lines_run: 0,
        block_depth: 0,
        stmts: Vec::new(),
        header: HeaderFields::default(),
    };
    if let Mode::Snippet(origin) = mode {
        asm.sections.push(Section {
            name: "<snippet>".into(),
            kind: Kind::Raw,
            bank: 0,
            start: u32::from(origin),
            size: 0,
            floating: false,
        });
        asm.current = Some(0);
    }
    let lines = std::mem::take(&mut asm.sources.lines);
    asm.run_lines(&lines)?;
    asm.sources.lines = lines;
    asm.place_floating_sections()?;
    let rom = match mode {
        Mode::Rom => asm.emit_rom()?,
        Mode::Snippet(_) => {
            let (image, _) = asm.emit_image(0x10000, |_, addr| addr as usize)?;
            let section = &asm.sections[0];
            image[section.start as usize..(section.start + section.size) as usize].to_vec()
        }
    };
    Ok(Assembled {
        rom,
        symbols: asm.symbols.into_iter().collect(),
        files: asm.sources.files,
    })
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

/// Splits tokens at commas outside brackets and parentheses.
fn split_args(tokens: &[Token]) -> Result<Vec<&[Token]>, String> {
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::LBracket | Token::LParen => depth += 1,
            Token::RBracket | Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                if i == start {
                    return Err("empty operand".into());
                }
                args.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(format!("unbalanced {}", describe(token)));
        }
    }
    if depth != 0 {
        return Err("unbalanced brackets".into());
    }
    if start == tokens.len() {
        return Err("missing operand after `,`".into());
    }
    args.push(&tokens[start..]);
    Ok(args)
}

impl Assembler {
    fn strict(&self, here: i64) -> EvalContext<'_> {
        EvalContext {
            symbols: &self.symbols,
            here,
            lenient: false,
        }
    }

    fn names(&self) -> Scope<'_> {
        Scope {
            label: &self.scope,
            variables: &self.variables,
        }
    }

    fn parse_expr(&self, tokens: &[Token]) -> Result<Expr, String> {
        ExprParser::parse_all(tokens, &self.names())
    }

    fn here(&self) -> Result<(usize, u32), String> {
        let index = self
            .current
            .ok_or("code or data before the first `SECTION`")?;
        let section = &self.sections[index];
        Ok((index, section.start + section.size))
    }

    fn define(&mut self, name: String, value: i64) -> Result<(), String> {
        if encode::is_reserved(&name) {
            return Err(format!(
                "`{name}` is a register name and cannot be a symbol"
            ));
        }
        if self.variables.contains_key(&name) {
            return Err(format!("`{name}` is a variable (defined with `=`)"));
        }
        if self.symbols.contains_key(&name) || self.floating_labels.iter().any(|l| l.0 == name) {
            return Err(format!("symbol `{name}` is already defined"));
        }
        self.symbols.insert(name, value);
        Ok(())
    }

    /// Evaluates an expression that must be known now (section addresses, `ds` counts).
    fn constant(&self, tokens: &[Token]) -> Result<i64, String> {
        let expr = self.parse_expr(tokens)?;
        let here = self.here().map_or(0, |(_, addr)| i64::from(addr));
        expr.eval(&self.strict(here))
            .map_err(|e| format!("{e} (this value must be known here)"))
    }

    /// Grows the current section by `size` bytes, checking it stays in its address range.
    fn advance(&mut self, size: u32) -> Result<(), String> {
        let (index, addr) = self.here()?;
        let section = &mut self.sections[index];
        let end = addr + size;
        if size > 0 && end - 1 > section.kind.range().1 {
            return Err(format!(
                "section \"{}\" overflows its address range (ends at ${:X})",
                section.name,
                end - 1
            ));
        }
        section.size += size;
        Ok(())
    }

    fn push(&mut self, loc: Loc, kind: StmtKind, size: u32) -> Result<(), String> {
        let (section, addr) = self.here()?;
        let offset = addr - self.sections[section].start;
        if size > 0 && !self.sections[section].kind.holds_data() {
            return Err(format!(
                "section \"{}\" is RAM: it can only reserve space with `ds`",
                self.sections[section].name
            ));
        }
        self.stmts.push(Stmt {
            loc,
            section,
            offset,
            kind,
        });
        self.advance(size)
    }

    /// First pass over `lines`, expanding `REPT`/`ENDR` and `IF`/`ELSE`/`ENDC` blocks.
    fn run_lines(&mut self, lines: &[SourceLine]) -> Result<(), AsmError> {
        self.block_depth += 1;
        let result = self.run_lines_inner(lines);
        self.block_depth -= 1;
        result
    }

    fn run_lines_inner(&mut self, lines: &[SourceLine]) -> Result<(), AsmError> {
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

    fn first_pass_line(&mut self, line: &SourceLine) -> Result<(), String> {
        let tokens = tokenize(&line.text)?;
        let mut rest: &[Token] = &tokens;

        // A label: `name:`, `name::`, `.local:` or `.local` alone.
        let label = match rest {
            [
                Token::Ident(name),
                Token::Colon | Token::DoubleColon,
                tail @ ..,
            ] => {
                let name = name.clone();
                rest = tail;
                Some(name)
            }
            [Token::Ident(name)] if name.starts_with('.') => {
                let name = name.clone();
                rest = &[];
                Some(name)
            }
            _ => None,
        };
        if let Some(name) = label {
            let full = qualify(&name, &self.scope)?;
            if !name.starts_with('.') {
                if name.contains('.') {
                    return Err(format!("label `{name}` may not contain `.`"));
                }
                self.scope = name;
            }
            let (index, addr) = self.here()?;
            let (floating, start) = (self.sections[index].floating, self.sections[index].start);
            if floating {
                // Its address is known once the section is placed.
                self.define(full.clone(), 0)?;
                self.symbols.remove(&full);
                self.floating_labels.push((full, index, addr - start));
            } else {
                self.define(full, i64::from(addr))?;
            }
        }

        // Constants: `NAME EQU expr`, `NAME = expr`, `DEF NAME EQU expr`, `DEF NAME = expr`.
        let def = match rest {
            [Token::Ident(d), Token::Ident(name), op, value @ ..]
                if d.eq_ignore_ascii_case("def") =>
            {
                Some((name, op, value))
            }
            [Token::Ident(name), op, value @ ..] => Some((name, op, value)),
            _ => None,
        };
        if let Some((name, op, value)) = def {
            let is_equ = matches!(op, Token::Ident(e) if e.eq_ignore_ascii_case("equ"));
            if is_equ || *op == Token::Op("=") {
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
                return Ok(());
            }
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
            "DB" => {
                let mut items = Vec::new();
                let mut size = 0u32;
                for arg in &args {
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
            "DW" => {
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
            "DS" => {
                let (count, fill) = match args.as_slice() {
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
            "INCBIN" => {
                let (file, start, length) = match args.as_slice() {
                    [[Token::Str(f)]] => (f, None, None),
                    [[Token::Str(f)], s] => (f, Some(self.constant(s)?), None),
                    [[Token::Str(f)], s, l] => {
                        (f, Some(self.constant(s)?), Some(self.constant(l)?))
                    }
                    _ => {
                        return Err(
                            "`INCBIN` takes a quoted file name, then optional start and length"
                                .into(),
                        );
                    }
                };
                let dir = self.sources.dirs[loc.file].clone().unwrap_or_default();
                let path = dir.join(file);
                self.sources.files.push(path.clone());
                let data = std::fs::read(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
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
            "ASSERT" => {
                let (condition, message) = match args.as_slice() {
                    [c] => (c, None),
                    [c, [Token::Str(m)]] => (c, Some(m.clone())),
                    _ => {
                        return Err(
                            "`ASSERT` takes a condition and an optional quoted message".into()
                        );
                    }
                };
                let condition = self.parse_expr(condition)?;
                if self.current.is_some() {
                    self.push(loc, StmtKind::Assert { condition, message }, 0)
                } else {
                    let ok = condition.eval(&self.strict(0))?;
                    match (ok, message) {
                        (0, Some(m)) => Err(format!("assertion failed: {m}")),
                        (0, None) => Err("assertion failed".into()),
                        _ => Ok(()),
                    }
                }
            }
            "TITLE" => match args.as_slice() {
                [[Token::Str(title)]] if title.len() <= 16 && title.is_ascii() => {
                    self.header.title = Some(title.as_bytes().to_vec());
                    self.check_title_fits()
                }
                _ => Err("`TITLE` takes a quoted ASCII title of at most 16 characters".into()),
            },
            "CART_TYPE" | "ROM_SIZE" | "RAM_SIZE" | "CGB_FLAG" => {
                let [value] = args.as_slice() else {
                    return Err(format!("`{word}` takes one value"));
                };
                let value = self.constant(value)?;
                let byte = u8::try_from(value)
                    .map_err(|_| format!("`{word}` value {value} is not a byte"))?;
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
            _ => {
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
                    mnemonic: word.clone(),
                    operands,
                };
                self.push(loc, kind, size)
            }
        }
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

    /// `SECTION "name", TYPE[$addr], BANK[n]`: address and bank optional.
    fn section(&mut self, args: &[&[Token]]) -> Result<(), String> {
        let usage = "expected `SECTION \"name\", TYPE[$address], BANK[n]`";
        let (name, kind_tokens, bank_tokens) = match args {
            [[Token::Str(name)], kind] => (name, *kind, None),
            [[Token::Str(name)], kind, bank] => (name, *kind, Some(*bank)),
            _ => return Err(usage.into()),
        };
        let bracketed = |tokens: &[Token]| -> Result<Option<i64>, String> {
            match tokens {
                [] => Ok(None),
                [Token::LBracket, inner @ .., Token::RBracket] => Ok(Some(self.constant(inner)?)),
                _ => Err(usage.into()),
            }
        };
        let Some((Token::Ident(kind_name), address)) = kind_tokens.split_first() else {
            return Err(usage.into());
        };
        let kind = Kind::parse(kind_name).ok_or_else(|| {
            format!("unknown section type `{kind_name}` (ROM0, ROMX, VRAM, SRAM, WRAM0, WRAMX, OAM, HRAM)")
        })?;
        let address = bracketed(address)?;
        let bank = match bank_tokens.map(|t| t.split_first()) {
            None => None,
            Some(Some((Token::Ident(b), inner))) if b.eq_ignore_ascii_case("bank") => {
                bracketed(inner)?
            }
            Some(_) => return Err(usage.into()),
        };
        let bank = match (kind, bank) {
            (Kind::Romx, None) => 1,
            (Kind::Romx, Some(b)) if (1..=511).contains(&b) => b as u32,
            (Kind::Romx, Some(b)) => return Err(format!("ROMX bank {b} is not 1-511")),
            (Kind::Sram, Some(b)) if (0..=15).contains(&b) => b as u32,
            (_, None) => 0,
            (_, Some(b)) => return Err(format!("bank {b} is not valid for this section type")),
        };
        let (low, high) = kind.range();
        let start = match address {
            Some(a) if (i64::from(low)..=i64::from(high)).contains(&a) => a as u32,
            Some(a) => {
                return Err(format!(
                    "address ${a:X} is outside {kind_name} (${low:04X}-${high:04X})"
                ));
            }
            None => kind.floating_low(),
        };
        self.sections.push(Section {
            name: name.clone(),
            kind,
            bank,
            start,
            size: 0,
            floating: address.is_none(),
        });
        self.current = Some(self.sections.len() - 1);
        Ok(())
    }

    /// Puts each floating section in the lowest gap of its type and bank that fits, in
    /// source order, then defines its labels.
    fn place_floating_sections(&mut self) -> Result<(), AsmError> {
        for index in 0..self.sections.len() {
            let section = &self.sections[index];
            if !section.floating {
                continue;
            }
            let (kind, bank, size) = (section.kind, section.bank, section.size);
            let mut taken: Vec<(u32, u32)> = self
                .sections
                .iter()
                .filter(|s| s.kind == kind && s.bank == bank && !s.floating && s.size > 0)
                .map(|s| (s.start, s.start + s.size))
                .collect();
            taken.sort_unstable();
            let mut start = kind.floating_low();
            for (from, to) in taken {
                if start + size <= from {
                    break;
                }
                start = start.max(to);
            }
            if size > 0 && start + size - 1 > kind.range().1 {
                let loc = self
                    .stmts
                    .iter()
                    .find(|s| s.section == index)
                    .map_or(Loc { file: 0, line: 0 }, |s| s.loc);
                let message = format!("no room for section \"{}\" ({size} bytes)", section.name);
                return Err(self.sources.error(loc, message));
            }
            let section = &mut self.sections[index];
            section.start = start;
            section.floating = false;
        }
        for (name, section, offset) in std::mem::take(&mut self.floating_labels) {
            let value = self.sections[section].start + offset;
            self.symbols.insert(name, i64::from(value));
        }
        Ok(())
    }

    /// Second pass: evaluates every statement and writes its bytes into an image of `len`
    /// bytes, at the offset `offset(section, address)` gives.
    fn emit_image(
        &self,
        len: usize,
        offset: impl Fn(&Section, u32) -> usize,
    ) -> Result<(Vec<u8>, Vec<u32>), AsmError> {
        let mut image = vec![0xFF; len];
        // Which statement (index + 1) wrote each byte, to report overlaps.
        let mut owner = vec![0u32; len];
        for (index, stmt) in self.stmts.iter().enumerate() {
            let err = |m: String| self.sources.error(stmt.loc, m);
            let section = &self.sections[stmt.section];
            let addr = section.start + stmt.offset;
            let ctx = self.strict(i64::from(addr));
            let bytes: Vec<u8> = match &stmt.kind {
                StmtKind::Instruction { mnemonic, operands } => {
                    encode(mnemonic, operands, &ctx).map_err(err)?
                }
                StmtKind::Db(items) => {
                    let mut out = Vec::new();
                    for item in items {
                        match item {
                            DataItem::Bytes(b) => out.extend_from_slice(b),
                            DataItem::Expr(e) => out.push(value8(e, &ctx).map_err(err)?),
                        }
                    }
                    out
                }
                StmtKind::Dw(exprs) => {
                    let mut out = Vec::new();
                    for e in exprs {
                        out.extend_from_slice(&value16(e, &ctx).map_err(err)?.to_le_bytes());
                    }
                    out
                }
                StmtKind::Ds { count, fill } => {
                    let fill = match fill {
                        Some(e) => value8(e, &ctx).map_err(err)?,
                        None => 0,
                    };
                    vec![fill; *count as usize]
                }
                StmtKind::Bytes(b) => b.clone(),
                StmtKind::Assert { condition, message } => {
                    if condition.eval(&ctx).map_err(err)? == 0 {
                        let m = message.as_deref().unwrap_or("condition is false");
                        return Err(err(format!("assertion failed: {m}")));
                    }
                    Vec::new()
                }
            };
            let start = offset(section, addr);
            for (i, byte) in bytes.into_iter().enumerate() {
                let at = start + i;
                if owner[at] != 0 {
                    let other = self.stmts[owner[at] as usize - 1].loc;
                    return Err(err(format!(
                        "overlaps bytes already placed by {}:{} (ROM offset ${at:X})",
                        self.sources.names[other.file], other.line
                    )));
                }
                owner[at] = index as u32 + 1;
                image[at] = byte;
            }
        }
        Ok((image, owner))
    }

    fn emit_rom(&self) -> Result<Vec<u8>, AsmError> {
        let banks_used = self
            .sections
            .iter()
            .filter(|s| s.kind == Kind::Romx)
            .map(|s| s.bank + 1)
            .max()
            .unwrap_or(2)
            .max(2);
        let mut size_code = 0u8;
        while (2u32 << size_code) < banks_used {
            size_code += 1;
        }
        let last = self
            .sources
            .lines
            .last()
            .map_or(Loc { file: 0, line: 0 }, |l| l.loc);
        if let Some(code) = self.header.rom_size {
            if code < size_code {
                return Err(self.sources.error(
                    last,
                    format!("`ROM_SIZE {code}` is smaller than the {banks_used} banks used"),
                ));
            }
            size_code = code;
        }
        let len = 0x8000usize << size_code;
        let (mut rom, owner) = self.emit_image(len, |section, addr| match section.kind {
            Kind::Romx => section.bank as usize * 0x4000 + (addr as usize - 0x4000),
            _ => addr as usize,
        })?;
        // Header bytes belong to the fix-up; code placed there would be overwritten.
        if let Some(&index) = owner[0x104..0x150].iter().find(|&&o| o != 0) {
            return Err(self.sources.error(
                self.stmts[index as usize - 1].loc,
                "bytes placed in $0104-$014F, which the cartridge header fix-up fills in \
                 (put code at $0100-$0103 and continue at $0150)",
            ));
        }
        header::fix_up(&mut rom, &self.header, size_code);
        Ok(rom)
    }
}
