//! Splits one source line into tokens.

/// One token of a source line.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// A name: a label, symbol, mnemonic, directive or register. May contain `.` (locals).
    Ident(String),
    Number(i64),
    Str(String),
    /// `+ - * / % & | ^ ~ ! << >> == != < > <= >= && || = @`
    Op(&'static str),
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    Colon,
    /// `::` after an exported label.
    DoubleColon,
}

impl Token {
    /// Whether this token ends a value, so a following `%` is the modulo operator and not
    /// the start of a binary literal.
    fn ends_value(&self) -> bool {
        matches!(
            self,
            Token::Ident(_) | Token::Number(_) | Token::Str(_) | Token::RParen | Token::RBracket
        ) || *self == Token::Op("@")
    }
}

const OPERATORS: [&str; 22] = [
    "<<", ">>", "==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "&", "|", "^", "~",
    "!", "<", ">", "=", "@",
];

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '#'
}

fn digits(chars: &[char], start: usize, radix: u32) -> (usize, Option<i64>) {
    let mut end = start;
    let mut value: i64 = 0;
    let mut overflow = false;
    while end < chars.len() && (chars[end].is_digit(radix) || chars[end] == '_') {
        if let Some(d) = chars[end].to_digit(radix) {
            match value
                .checked_mul(i64::from(radix))
                .and_then(|v| v.checked_add(i64::from(d)))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
        }
        end += 1;
    }
    let ok = end > start && !overflow;
    (end, ok.then_some(value))
}

fn escape(c: char) -> Option<char> {
    Some(match c {
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        '0' => '\0',
        '\\' => '\\',
        '"' => '"',
        '\'' => '\'',
        _ => return None,
    })
}

/// Tokenizes `line` up to its `;` comment.
pub fn tokenize(line: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ';' {
            break;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // `%` then a binary digit starts a literal unless it follows a value; after a name
        // (which may be a keyword such as `EQU`) `x %10` is a literal and `x % 10`, `x%10`
        // are modulo.
        let after_value = match tokens.last() {
            Some(Token::Ident(_)) => i == 0 || !chars[i - 1].is_whitespace(),
            Some(t) => t.ends_value(),
            None => false,
        };
        let next = chars.get(i + 1).copied();
        // Numbers: $hex, %bin (only where a value may start), 0x, 0b, decimal.
        let radix_prefix = match (c, next) {
            ('$', Some(n)) if n.is_ascii_hexdigit() => Some((16, 1)),
            ('%', Some('0' | '1')) if !after_value => Some((2, 1)),
            ('0', Some('x' | 'X')) => Some((16, 2)),
            ('0', Some('b' | 'B')) if chars.get(i + 2).is_some_and(|d| matches!(d, '0' | '1')) => {
                Some((2, 2))
            }
            _ => None,
        };
        if let Some((radix, skip)) = radix_prefix {
            let (end, value) = digits(&chars, i + skip, radix);
            let text: String = chars[i..end].iter().collect();
            let value = value.ok_or_else(|| format!("bad number `{text}`"))?;
            if chars.get(end).is_some_and(|&c| is_ident_char(c)) {
                return Err(format!("bad number `{text}{}`", chars[end]));
            }
            tokens.push(Token::Number(value));
            i = end;
            continue;
        }
        if c.is_ascii_digit() {
            let (end, value) = digits(&chars, i, 10);
            let text: String = chars[i..end].iter().collect();
            let value = value.ok_or_else(|| format!("number `{text}` is too large"))?;
            if chars.get(end).is_some_and(|&c| is_ident_char(c)) {
                let mut end2 = end;
                while end2 < chars.len() && is_ident_char(chars[end2]) {
                    end2 += 1;
                }
                let bad: String = chars[i..end2].iter().collect();
                return Err(format!("bad number `{bad}`"));
            }
            tokens.push(Token::Number(value));
            i = end;
            continue;
        }
        if is_ident_start(c) {
            let start = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            tokens.push(Token::Ident(chars[start..i].iter().collect()));
            continue;
        }
        if c == '"' {
            let mut text = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err("unterminated string".into()),
                    Some('"') => break,
                    Some('\\') => {
                        let e = chars.get(i + 1).copied().and_then(escape);
                        text.push(e.ok_or("bad escape in string")?);
                        i += 2;
                    }
                    Some(&ch) => {
                        text.push(ch);
                        i += 1;
                    }
                }
            }
            i += 1;
            tokens.push(Token::Str(text));
            continue;
        }
        if c == '\'' {
            let (ch, len) = match (chars.get(i + 1), chars.get(i + 2)) {
                (Some('\\'), Some(&e)) => (escape(e).ok_or("bad escape in character")?, 3),
                (Some(&ch), _) => (ch, 2),
                (None, _) => return Err("unterminated character literal".into()),
            };
            if chars.get(i + len) != Some(&'\'') {
                return Err("unterminated character literal".into());
            }
            if !ch.is_ascii() {
                return Err(format!("character '{ch}' is not ASCII"));
            }
            tokens.push(Token::Number(ch as i64));
            i += len + 1;
            continue;
        }
        let single = match c {
            '[' => Some(Token::LBracket),
            ']' => Some(Token::RBracket),
            '(' => Some(Token::LParen),
            ')' => Some(Token::RParen),
            ',' => Some(Token::Comma),
            ':' if next == Some(':') => {
                i += 1;
                Some(Token::DoubleColon)
            }
            ':' => Some(Token::Colon),
            _ => None,
        };
        if let Some(token) = single {
            tokens.push(token);
            i += 1;
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        match OPERATORS.iter().find(|op| rest.starts_with(**op)) {
            Some(op) => {
                tokens.push(Token::Op(op));
                i += op.len();
            }
            None => return Err(format!("unexpected character `{c}`")),
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_modulo() {
        assert_eq!(
            tokenize("ld a, %1010 ; x").unwrap(),
            vec![
                Token::Ident("ld".into()),
                Token::Ident("a".into()),
                Token::Comma,
                Token::Number(10)
            ]
        );
        assert_eq!(
            tokenize("7 % 10")
                .unwrap()
                .iter()
                .filter(|t| **t == Token::Op("%"))
                .count(),
            1
        );
        assert_eq!(tokenize("$fF 0x10 'A'").unwrap()[2], Token::Number(65));
    }
}
