//! The condition language of breakpoints, watchpoints, logpoints and `evaluate`:
//! `a == 3 && [wPlayerX] > 40`. Numbers are decimal, `$FF`/`0xFF` hex or `%1010` binary;
//! names are registers (`a`..`l`, `af`, `bc`, `de`, `hl`, `sp`, `pc`), flags (`zf`, `nf`,
//! `hf`, `cf`, 0 or 1), `ly` or labels (their address); `[x]` is the byte at x and `word[x]`
//! the little-endian word. Operators, loosest first: `||`, `&&`, `== != < <= > >=`, `|`,
//! `^`, `&`, `<< >>`, `+ -`, `* / %`, unary `! ~ -`. Comparisons give 0 or 1.

/// What an expression reads when evaluated.
pub trait Context {
    /// A register, flag or other named machine value, or None if `name` is not one.
    fn register(&self, name: &str) -> Option<i64>;
    /// The byte at `addr`, read without side effects.
    fn byte(&mut self, addr: u16) -> u8;
    /// A label's address, or None.
    fn label(&self, name: &str) -> Option<u16>;
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(i64),
    Name(String),
    Byte(Box<Expr>),
    Word(Box<Expr>),
    Unary(char, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
}

/// Binary operators by binding strength, loosest first.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["==", "!=", "<=", ">=", "<", ">"],
    &["|"],
    &["^"],
    &["&"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

/// Every operator token, longest first so `<=` wins over `<`.
const SYMBOLS: &[&str] = &[
    "||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "<", ">", "|", "^", "&", "+", "-", "*", "/",
    "%", "!", "~", "(", ")", "[", "]",
];

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(i64),
    Name(String),
    Symbol(&'static str),
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let word_end = |from: usize| {
            let mut end = from;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || b"_.".contains(&bytes[end]))
            {
                end += 1;
            }
            end
        };
        let number = |digits: &str, radix: u32| {
            i64::from_str_radix(&digits.replace('_', ""), radix)
                .map_err(|_| format!("bad number `{digits}`"))
        };
        if c == '$' || (c == '%' && bytes.get(i + 1).is_some_and(|b| b"01".contains(b))) {
            let end = word_end(i + 1);
            let radix = if c == '$' { 16 } else { 2 };
            tokens.push(Token::Number(number(&text[i + 1..end], radix)?));
            i = end;
        } else if c.is_ascii_digit() {
            let end = word_end(i);
            let word = &text[i..end];
            let value = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
                Some(hex) => number(hex, 16)?,
                None => number(word, 10)?,
            };
            tokens.push(Token::Number(value));
            i = end;
        } else if c.is_ascii_alphabetic() || c == '_' || c == '.' {
            let end = word_end(i);
            tokens.push(Token::Name(text[i..end].to_string()));
            i = end;
        } else if let Some(symbol) = SYMBOLS.iter().find(|s| text[i..].starts_with(**s)) {
            tokens.push(Token::Symbol(symbol));
            i += symbol.len();
        } else {
            let c = text[i..].chars().next().unwrap_or('?');
            return Err(format!("unexpected `{c}` at column {}", i + 1));
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

/// Nesting deeper than this is refused (no stack overflow on hostile input).
const MAX_DEPTH: usize = 64;

impl Parser {
    fn peek_symbol(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Token::Symbol(s)) => Some(s),
            _ => None,
        }
    }

    fn expect(&mut self, symbol: &str) -> Result<(), String> {
        if self.peek_symbol() == Some(symbol) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected `{symbol}`"))
        }
    }

    fn binary(&mut self, level: usize) -> Result<Expr, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(op) = self.peek_symbol().filter(|s| LEVELS[level].contains(s)) {
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("expression nested too deeply".into());
        }
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<Expr, String> {
        let token = self
            .tokens
            .get(self.at)
            .cloned()
            .ok_or("expression ends early")?;
        self.at += 1;
        match token {
            Token::Number(n) => Ok(Expr::Number(n)),
            Token::Name(name)
                if name.eq_ignore_ascii_case("word") && self.peek_symbol() == Some("[") =>
            {
                self.at += 1;
                let inner = self.binary(0)?;
                self.expect("]")?;
                Ok(Expr::Word(Box::new(inner)))
            }
            Token::Name(name) => Ok(Expr::Name(name)),
            Token::Symbol("(") => {
                let inner = self.binary(0)?;
                self.expect(")")?;
                Ok(inner)
            }
            Token::Symbol("[") => {
                let inner = self.binary(0)?;
                self.expect("]")?;
                Ok(Expr::Byte(Box::new(inner)))
            }
            Token::Symbol(op @ ("!" | "~" | "-")) => {
                let inner = self.unary()?;
                Ok(Expr::Unary(
                    op.chars().next().unwrap_or('!'),
                    Box::new(inner),
                ))
            }
            Token::Symbol(s) => Err(format!("unexpected `{s}`")),
        }
    }
}

impl Expr {
    /// Parses `text`; the error says what is wrong in one line.
    pub fn parse(text: &str) -> Result<Expr, String> {
        let tokens = tokenize(text)?;
        if tokens.is_empty() {
            return Err("empty expression".into());
        }
        let mut parser = Parser {
            tokens,
            at: 0,
            depth: 0,
        };
        let expr = parser.binary(0)?;
        match parser.tokens.get(parser.at) {
            None => Ok(expr),
            Some(Token::Symbol(s)) => Err(format!("unexpected `{s}`")),
            Some(Token::Name(n)) => Err(format!("unexpected `{n}`")),
            Some(Token::Number(n)) => Err(format!("unexpected `{n}`")),
        }
    }

    /// Checks that every name is a register or a label of `ctx` (so a breakpoint with an
    /// unknown label is refused when set, not when hit).
    pub fn check_names(&self, ctx: &impl Context) -> Result<(), String> {
        match self {
            Expr::Number(_) => Ok(()),
            Expr::Name(name) => {
                if ctx.register(name).is_some() || ctx.label(name).is_some() {
                    Ok(())
                } else {
                    Err(format!("unknown name `{name}`"))
                }
            }
            Expr::Byte(inner) | Expr::Word(inner) | Expr::Unary(_, inner) => inner.check_names(ctx),
            Expr::Binary(_, l, r) => {
                l.check_names(ctx)?;
                r.check_names(ctx)
            }
        }
    }

    /// Evaluates with wrapping 64-bit arithmetic; division by zero and unknown names are
    /// errors.
    pub fn eval(&self, ctx: &mut impl Context) -> Result<i64, String> {
        Ok(match self {
            Expr::Number(n) => *n,
            Expr::Name(name) => match ctx.register(name) {
                Some(value) => value,
                None => i64::from(
                    ctx.label(name)
                        .ok_or_else(|| format!("unknown name `{name}`"))?,
                ),
            },
            Expr::Byte(inner) => {
                let addr = inner.eval(ctx)? as u16;
                i64::from(ctx.byte(addr))
            }
            Expr::Word(inner) => {
                let addr = inner.eval(ctx)? as u16;
                i64::from(u16::from_le_bytes([
                    ctx.byte(addr),
                    ctx.byte(addr.wrapping_add(1)),
                ]))
            }
            Expr::Unary(op, inner) => {
                let v = inner.eval(ctx)?;
                match op {
                    '!' => i64::from(v == 0),
                    '~' => !v,
                    _ => v.wrapping_neg(),
                }
            }
            Expr::Binary(op, l, r) => {
                let a = l.eval(ctx)?;
                // Short-circuit as C does, so `hl != 0 && [hl] == 1` reads no memory at 0.
                match *op {
                    "&&" if a == 0 => return Ok(0),
                    "||" if a != 0 => return Ok(1),
                    _ => {}
                }
                let b = r.eval(ctx)?;
                match *op {
                    "&&" | "||" => i64::from(b != 0),
                    "==" => i64::from(a == b),
                    "!=" => i64::from(a != b),
                    "<" => i64::from(a < b),
                    "<=" => i64::from(a <= b),
                    ">" => i64::from(a > b),
                    ">=" => i64::from(a >= b),
                    "|" => a | b,
                    "^" => a ^ b,
                    "&" => a & b,
                    "<<" => a.wrapping_shl((b & 63) as u32),
                    ">>" => a.wrapping_shr((b & 63) as u32),
                    "+" => a.wrapping_add(b),
                    "-" => a.wrapping_sub(b),
                    "*" => a.wrapping_mul(b),
                    "/" | "%" if b == 0 => return Err("division by zero".into()),
                    "/" => a.wrapping_div(b),
                    _ => a.wrapping_rem(b),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake([u8; 0x10000]);
    impl Context for Fake {
        fn register(&self, name: &str) -> Option<i64> {
            match name {
                "a" => Some(3),
                "hl" => Some(0xC000),
                _ => None,
            }
        }
        fn byte(&mut self, addr: u16) -> u8 {
            self.0[usize::from(addr)]
        }
        fn label(&self, name: &str) -> Option<u16> {
            (name == "wPlayerX").then_some(0xC100)
        }
    }

    fn eval(text: &str) -> Result<i64, String> {
        let mut ctx = Fake([0; 0x10000]);
        ctx.0[0xC100] = 41;
        ctx.0[0xC000] = 0x34;
        ctx.0[0xC001] = 0x12;
        Expr::parse(text)?.eval(&mut ctx)
    }

    #[test]
    fn evaluates_the_issue_example_and_friends() {
        assert_eq!(eval("a == 3 && [wPlayerX] > 40"), Ok(1));
        assert_eq!(eval("word[hl]"), Ok(0x1234));
        assert_eq!(eval("$10 + 0x10 + %10 + 2 * 3"), Ok(40));
        assert_eq!(eval("!(a - 3) && ~0 == -1"), Ok(1));
        assert!(eval("a ==").is_err());
        assert!(eval("nosuchlabel").is_err());
        assert!(eval("1 / 0").is_err());
        assert!(eval(&"(".repeat(10_000)).is_err());
    }
}
