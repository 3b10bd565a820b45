//! DAP framing: `Content-Length: N` header lines, a blank line, then N bytes of JSON.

use std::io::{self, BufRead, Write};

/// The largest message body accepted (a client never needs more; a bad header must not
/// make us allocate gigabytes).
const MAX_BODY: usize = 16 << 20;

/// Reads one message body; `Ok(None)` at the end of the stream. A malformed header is an
/// `InvalidData` error (the stream cannot be resynchronised after it).
pub fn read_message(input: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            let n: usize = value
                .trim()
                .parse()
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad Content-Length"))?;
            if n > MAX_BODY {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "message too large",
                ));
            }
            length = Some(n);
        }
    }
    let mut body = vec![0; length.unwrap_or(0)];
    input.read_exact(&mut body)?;
    Ok(Some(body))
}

/// Writes one message.
pub fn write_message(output: &mut impl Write, body: &serde_json::Value) -> io::Result<()> {
    let text = body.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{}", text.len(), text)?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_bad_headers_are_errors() {
        let mut out = Vec::new();
        write_message(&mut out, &serde_json::json!({"seq": 1})).unwrap();
        let mut input = io::Cursor::new(out);
        assert_eq!(read_message(&mut input).unwrap().unwrap(), br#"{"seq":1}"#);
        assert!(read_message(&mut input).unwrap().is_none());
        let mut bad = io::Cursor::new(b"Content-Length: x\r\n\r\n".to_vec());
        assert!(read_message(&mut bad).is_err());
        let mut huge = io::Cursor::new(b"Content-Length: 99999999999\r\n\r\n".to_vec());
        assert!(read_message(&mut huge).is_err());
    }
}
