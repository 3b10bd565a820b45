//! The assembler's state through both passes: symbols, sections, the statements of the
//! first pass, and the bookkeeping every directive shares.

use crate::encode::{self, Operand};
use crate::expr::{EvalContext, Expr, ExprParser, Scope, describe};
use crate::header::HeaderFields;
use crate::lexer::Token;
use crate::sections::Section;
use crate::sources::{Loc, Sources};
use std::collections::HashMap;

/// One `db` value: an expression (one byte) or a string's bytes.
pub(crate) enum DataItem {
    Expr(Expr),
    Bytes(Vec<u8>),
}

/// What a statement of the first pass emits in the second.
pub(crate) enum StmtKind {
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

/// A statement placed by the first pass, emitted by the second.
pub(crate) struct Stmt {
    pub(crate) loc: Loc,
    pub(crate) section: usize,
    /// From the section's start (floating sections move after the first pass).
    pub(crate) offset: u32,
    pub(crate) kind: StmtKind,
}

/// Everything one assembly knows, from the first pass to the finished image.
pub(crate) struct Assembler {
    pub(crate) sources: Sources,
    pub(crate) symbols: HashMap<String, i64>,
    pub(crate) sections: Vec<Section>,
    pub(crate) current: Option<usize>,
    pub(crate) scope: String,
    pub(crate) variables: HashMap<String, i64>,
    /// Labels in floating sections: (name, section, offset), defined once placed.
    pub(crate) floating_labels: Vec<(String, usize, u32)>,
    /// Every label defined (not constants or variables) and its section, for `.sym`.
    pub(crate) labels: Vec<(String, usize)>,
    /// Lines processed so far and `REPT`/`IF` nesting, both bounded.
    pub(crate) lines_run: u64,
    pub(crate) block_depth: u32,
    pub(crate) stmts: Vec<Stmt>,
    pub(crate) header: HeaderFields,
}

/// Splits tokens at commas outside brackets and parentheses.
pub(crate) fn split_args(tokens: &[Token]) -> Result<Vec<&[Token]>, String> {
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
    /// An assembler over `sources`, before the first pass.
    pub(crate) fn new(sources: Sources) -> Assembler {
        Assembler {
            sources,
            symbols: HashMap::new(),
            sections: Vec::new(),
            current: None,
            scope: String::new(),
            variables: HashMap::new(),
            floating_labels: Vec::new(),
            labels: Vec::new(),
            lines_run: 0,
            block_depth: 0,
            stmts: Vec::new(),
            header: HeaderFields::default(),
        }
    }

    pub(crate) fn strict(&self, here: i64) -> EvalContext<'_> {
        EvalContext {
            symbols: &self.symbols,
            here,
            lenient: false,
        }
    }

    pub(crate) fn names(&self) -> Scope<'_> {
        Scope {
            label: &self.scope,
            variables: &self.variables,
        }
    }

    pub(crate) fn parse_expr(&self, tokens: &[Token]) -> Result<Expr, String> {
        ExprParser::parse_all(tokens, &self.names())
    }

    pub(crate) fn here(&self) -> Result<(usize, u32), String> {
        let index = self
            .current
            .ok_or("code or data before the first `SECTION`")?;
        let section = &self.sections[index];
        Ok((index, section.start + section.size))
    }

    pub(crate) fn define(&mut self, name: String, value: i64) -> Result<(), String> {
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
    pub(crate) fn constant(&self, tokens: &[Token]) -> Result<i64, String> {
        let expr = self.parse_expr(tokens)?;
        let here = self.here().map_or(0, |(_, addr)| i64::from(addr));
        expr.eval(&self.strict(here))
            .map_err(|e| format!("{e} (this value must be known here)"))
    }

    /// Grows the current section by `size` bytes, checking it stays in its address range.
    pub(crate) fn advance(&mut self, size: u32) -> Result<(), String> {
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

    pub(crate) fn push(&mut self, loc: Loc, kind: StmtKind, size: u32) -> Result<(), String> {
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
}
