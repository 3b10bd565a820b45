//! Expressions: parsed once in the first pass, evaluated when their symbols are known.

use crate::lexer::Token;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub enum Expr {
    Num(i64),
    /// A symbol, with any local label already expanded to `Global.local`.
    Sym(String),
    /// `@`: the address of the statement being assembled.
    Here,
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
}

/// What evaluation sees: symbols and the current address. When `lenient`, unknown symbols
/// read as zero (first pass: only sizes matter there, and no size depends on a value).
pub struct EvalContext<'a> {
    pub symbols: &'a HashMap<String, i64>,
    pub here: i64,
    pub lenient: bool,
}

impl Expr {
    pub fn eval(&self, ctx: &EvalContext) -> Result<i64, String> {
        Ok(match self {
            Expr::Num(n) => *n,
            Expr::Here => ctx.here,
            Expr::Sym(name) => match ctx.symbols.get(name) {
                Some(v) => *v,
                None if ctx.lenient => 0,
                None => return Err(format!("undefined symbol `{name}`")),
            },
            Expr::Unary(op, e) => {
                let v = e.eval(ctx)?;
                match *op {
                    "-" => v.wrapping_neg(),
                    "+" => v,
                    "~" => !v,
                    "!" => i64::from(v == 0),
                    "HIGH" => (v >> 8) & 0xFF,
                    "LOW" => v & 0xFF,
                    _ => unreachable!("parser only builds known unary operators"),
                }
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (a.eval(ctx)?, b.eval(ctx)?);
                match *op {
                    "+" => a.wrapping_add(b),
                    "-" => a.wrapping_sub(b),
                    "*" => a.wrapping_mul(b),
                    "/" | "%" if b == 0 => {
                        if ctx.lenient {
                            0
                        } else {
                            return Err("division by zero".into());
                        }
                    }
                    "/" => a.wrapping_div(b),
                    "%" => a.wrapping_rem(b),
                    "&" => a & b,
                    "|" => a | b,
                    "^" => a ^ b,
                    "<<" => a.checked_shl(u32::try_from(b).unwrap_or(64)).unwrap_or(0),
                    ">>" => a >> b.clamp(0, 63),
                    "==" => i64::from(a == b),
                    "!=" => i64::from(a != b),
                    "<" => i64::from(a < b),
                    ">" => i64::from(a > b),
                    "<=" => i64::from(a <= b),
                    ">=" => i64::from(a >= b),
                    "&&" => i64::from(a != 0 && b != 0),
                    "||" => i64::from(a != 0 || b != 0),
                    _ => unreachable!("parser only builds known binary operators"),
                }
            }
        })
    }
}

/// Binary operators from loosest to tightest binding.
const LEVELS: [&[&str]; 9] = [
    &["||"],
    &["&&"],
    &["==", "!=", "<", ">", "<=", ">="],
    &["|"],
    &["^"],
    &["&"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

/// What names mean while a line is parsed.
pub struct Scope<'a> {
    /// The global label that `.local` names are scoped to.
    pub label: &'a str,
    /// Variables (`NAME = expr`): unlike constants they can change, so a use takes the
    /// value the variable has on that line.
    pub variables: &'a HashMap<String, i64>,
}

/// A recursive-descent parser over a token slice.
pub struct ExprParser<'t> {
    tokens: &'t [Token],
    pos: usize,
    scope: &'t Scope<'t>,
    /// Parentheses and unary operators open so far: bounded so no input overflows the stack.
    depth: u32,
}

const MAX_DEPTH: u32 = 128;

/// Expands a `.local` reference to `Global.local`.
pub fn qualify(name: &str, scope: &str) -> Result<String, String> {
    if let Some(local) = name.strip_prefix('.') {
        if scope.is_empty() {
            return Err(format!(
                "local label `.{local}` has no global label before it"
            ));
        }
        Ok(format!("{scope}.{local}"))
    } else {
        Ok(name.to_string())
    }
}

impl<'t> ExprParser<'t> {
    /// Parses all of `tokens` as one expression.
    pub fn parse_all(tokens: &'t [Token], scope: &'t Scope<'t>) -> Result<Expr, String> {
        if tokens.is_empty() {
            return Err("expected an expression".into());
        }
        let mut parser = ExprParser {
            tokens,
            pos: 0,
            scope,
            depth: 0,
        };
        let expr = parser.level(0)?;
        if parser.pos != tokens.len() {
            return Err(format!(
                "unexpected {} in expression",
                describe(&tokens[parser.pos])
            ));
        }
        Ok(expr)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn level(&mut self, level: usize) -> Result<Expr, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.level(level + 1)?;
        while let Some(Token::Op(op)) = self.peek() {
            let op: &'static str = op;
            if !LEVELS[level].contains(&op) {
                break;
            }
            self.pos += 1;
            let right = self.level(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("expression nested more than {MAX_DEPTH} deep"));
        }
        let result = if let Some(Token::Op(op @ ("-" | "+" | "~" | "!"))) = self.peek() {
            let op: &'static str = op;
            self.pos += 1;
            self.unary().map(|e| Expr::Unary(op, Box::new(e)))
        } else {
            self.primary()
        };
        self.depth -= 1;
        result
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let token = self.peek().cloned().ok_or("expression ends too early")?;
        self.pos += 1;
        match token {
            Token::Number(n) => Ok(Expr::Num(n)),
            Token::Op("@") => Ok(Expr::Here),
            Token::LParen => {
                let e = self.level(0)?;
                self.expect_rparen()?;
                Ok(e)
            }
            Token::Ident(name) => {
                let upper = name.to_ascii_uppercase();
                if (upper == "HIGH" || upper == "LOW") && self.peek() == Some(&Token::LParen) {
                    self.pos += 1;
                    let e = self.level(0)?;
                    self.expect_rparen()?;
                    let op = if upper == "HIGH" { "HIGH" } else { "LOW" };
                    return Ok(Expr::Unary(op, Box::new(e)));
                }
                if crate::encode::is_reserved(&name) {
                    return Err(format!(
                        "register `{name}` cannot be used in an expression (memory operands are written `[{name}]`)"
                    ));
                }
                let name = qualify(&name, self.scope.label)?;
                match self.scope.variables.get(&name) {
                    Some(value) => Ok(Expr::Num(*value)),
                    None => Ok(Expr::Sym(name)),
                }
            }
            Token::Str(s) if s.chars().count() == 1 => {
                Ok(Expr::Num(s.chars().next().map_or(0, |c| c as i64)))
            }
            other => Err(format!("unexpected {} in expression", describe(&other))),
        }
    }

    fn expect_rparen(&mut self) -> Result<(), String> {
        if self.peek() == Some(&Token::RParen) {
            self.pos += 1;
            Ok(())
        } else {
            Err("missing `)`".into())
        }
    }
}

/// A token as the user wrote it, for error messages.
pub fn describe(token: &Token) -> String {
    match token {
        Token::Ident(s) => format!("`{s}`"),
        Token::Number(n) => format!("number {n}"),
        Token::Str(s) => format!("string \"{s}\""),
        Token::Op(op) => format!("`{op}`"),
        Token::LBracket => "`[`".into(),
        Token::RBracket => "`]`".into(),
        Token::LParen => "`(`".into(),
        Token::RParen => "`)`".into(),
        Token::Comma => "`,`".into(),
        Token::Colon => "`:`".into(),
        Token::DoubleColon => "`::`".into(),
    }
}
