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

mod assembler;
mod blocks;
mod directives;
mod emit;
mod encode;
mod expr;
mod header;
mod lexer;
mod line_table;
mod sections;
mod sources;

use assembler::Assembler;
use sections::{Kind, Section};
use sources::Sources;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use line_table::{LineEntry, LineTable};
pub use sources::BUILTIN_INCLUDES;

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

/// A finished ROM and the symbols that went into it.
#[derive(Debug, Clone)]
pub struct Assembled {
    pub rom: Vec<u8>,
    /// Every label and constant; banked labels hold their CPU address.
    pub symbols: BTreeMap<String, i64>,
    /// Every file read (the source, its includes and binaries, not built-in includes): a
    /// build script prints `cargo:rerun-if-changed=` for each.
    pub files: Vec<PathBuf>,
    /// The labels (not constants) as a `.sym` file in RGBDS's format.
    pub sym: String,
    /// Which source line put which bytes where (empty for snippets); write it beside the
    /// `.sym` with [`LineTable::to_text`] as a `.lines` file.
    pub lines: LineTable,
}

impl Assembled {
    /// Writes the ROM to `rom_path` and, beside it, its labels (`.sym`) and line table
    /// (`.lines`): what `backspin debug` reads.
    pub fn write_with_debug_info(&self, rom_path: &Path) -> std::io::Result<()> {
        std::fs::write(rom_path, &self.rom)?;
        std::fs::write(rom_path.with_extension("sym"), &self.sym)?;
        std::fs::write(rom_path.with_extension("lines"), self.lines.to_text())
    }
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

fn assemble_source(
    source: &str,
    name: &str,
    path: &Path,
    mode: Mode,
) -> Result<Assembled, AsmError> {
    let mut sources = Sources::default();
    let dir = path.parent().map(Path::to_path_buf);
    sources.add(source, name.to_string(), dir, 0)?;
    let mut asm = Assembler::new(sources);
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
    let (rom, lines) = match mode {
        Mode::Rom => asm.emit_rom()?,
        Mode::Snippet(_) => {
            let (image, _, _) = asm.emit_image(0x10000, |_, addr| addr as usize)?;
            let section = &asm.sections[0];
            let code = &image[section.start as usize..(section.start + section.size) as usize];
            (code.to_vec(), LineTable::default())
        }
    };
    let sym = asm.sym_text();
    Ok(Assembled {
        rom,
        symbols: asm.symbols.into_iter().collect(),
        files: asm.sources.files,
        sym,
        lines,
    })
}
