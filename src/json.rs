//! A small, strict JSON value type: parse, print, and hand to serde.
//!
//! The library reads JSON from places it does not trust (an LLM's reply, a host's settings), so
//! the parser is strict (RFC 8259: no comments, no trailing commas, no single quotes), bounded in
//! nesting depth ([`MAX_DEPTH`]), linear in time (one pass, no backtracking; benchmarked by
//! `tests/perf_parsers.rs` and checked by the `parse_json` fuzz target), and never panics on any
//! input. Escapes `\uXXXX` follow JSON: a surrogate pair
//! becomes one character; a lone surrogate becomes U+FFFD (what a lossy UTF-16 to UTF-8
//! conversion does) instead of failing the whole document.
//!
//! Objects keep their keys in document order, duplicates included; [`Json::get`] returns the
//! last value for a key, as JavaScript's `JSON.parse` does.
//!
//! ```
//! use memdir::json::{parse, Json};
//! let v = parse(r#"{"selected_memories": ["a.md", "b.md"]}"#).unwrap();
//! let names = v.get("selected_memories").and_then(Json::as_array).unwrap();
//! assert_eq!(names[0].as_str(), Some("a.md"));
//! assert_eq!(v.to_string(), r#"{"selected_memories":["a.md","b.md"]}"#);
//! ```

use std::fmt;

/// Deepest nesting of arrays and objects [`parse`] accepts.
pub const MAX_DEPTH: usize = 128;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number (always a double, as in JavaScript).
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object: key/value pairs in document order (duplicate keys kept).
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key` in an object (the last one if the key repeats); `None` for non-objects.
    ///
    /// ```
    /// let v = memdir::json::parse(r#"{"a":1,"a":2}"#).unwrap();
    /// assert_eq!(v.get("a").and_then(|n| n.as_f64()), Some(2.0));
    /// ```
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The items of an array value.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The value of a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The value of a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
}

/// Why a text is not JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset in the input where the problem was found.
    pub offset: usize,
    /// What was wrong.
    pub message: &'static str,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for JsonError {}

/// Parse one JSON value; only JSON whitespace may surround it.
///
/// ```
/// use memdir::json::{parse, Json};
/// assert_eq!(parse(" [1, true, null] "), Ok(Json::Array(vec![
///     Json::Number(1.0), Json::Bool(true), Json::Null,
/// ])));
/// assert_eq!(parse(r#""\ud83d\ude00""#), Ok(Json::String("😀".into())));
/// assert_eq!(parse(r#""\ud800x""#), Ok(Json::String("\u{FFFD}x".into())));
/// assert!(parse("[1,]").is_err());
/// ```
pub fn parse(text: &str) -> Result<Json, JsonError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    parser.skip_ws();
    let value = parser.value(0)?;
    parser.skip_ws();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error("unexpected text after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: &'static str) -> JsonError {
        JsonError {
            offset: self.pos,
            message,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect_literal(&mut self, literal: &[u8], value: Json) -> Result<Json, JsonError> {
        if self.bytes.get(self.pos..self.pos + literal.len()) == Some(literal) {
            self.pos += literal.len();
            Ok(value)
        } else {
            Err(self.error("unknown literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        match self.peek() {
            None => Err(self.error("unexpected end of input")),
            Some(b'n') => self.expect_literal(b"null", Json::Null),
            Some(b't') => self.expect_literal(b"true", Json::Bool(true)),
            Some(b'f') => self.expect_literal(b"false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::String),
            Some(b'[') => self.array(depth + 1),
            Some(b'{') => self.object(depth + 1),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("unexpected character")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.pos += 1; // '{'
        let mut pairs = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(pairs));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a string key"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':'"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth)?;
            pairs.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(pairs));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("expected a digit after '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        // The bytes just checked are ASCII, so this slice is valid UTF-8.
        let text = std::str::from_utf8(self.bytes.get(start..self.pos).unwrap_or_default())
            .map_err(|_| self.error("invalid number"))?;
        text.parse::<f64>()
            .map(Json::Number)
            .map_err(|_| self.error("invalid number"))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut value = 0u32;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.error("expected four hex digits after \\u")),
            };
            value = value * 16 + u32::from(digit);
            self.pos += 1;
        }
        Ok(value)
    }

    /// After `\u`: one code point, joining a surrogate pair; a lone surrogate is U+FFFD.
    fn unicode_escape(&mut self) -> Result<char, JsonError> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) {
            let save = self.pos;
            if self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u") {
                self.pos += 2;
                let second = self.hex4()?;
                if (0xDC00..0xE000).contains(&second) {
                    let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                    return Ok(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                // Not a low surrogate: the high one stands alone; re-read the second escape.
                self.pos = save;
            }
            return Ok(char::REPLACEMENT_CHARACTER);
        }
        Ok(char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            // Copy the run of plain bytes up to the next quote, backslash or control byte.
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The input is a `&str` and the run stops only at ASCII bytes, so it is valid UTF-8.
            if let Some(Ok(run)) = self.bytes.get(run_start..self.pos).map(std::str::from_utf8) {
                out.push_str(run);
            }
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{C}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            out.push(self.unicode_escape()?);
                            continue;
                        }
                        _ => return Err(self.error("invalid escape")),
                    };
                    self.pos += 1;
                    out.push(escaped);
                }
                Some(_) => return Err(self.error("control character in string")),
            }
        }
    }
}

/// Append `s` as a JSON string literal: runs that need no escape are copied whole.
///
/// ```
/// let mut out = String::new();
/// memdir::json::push_string(&mut out, "a\"b\u{1}é");
/// assert_eq!(out, r#""a\"b\u0001é""#);
/// ```
pub fn push_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let Some(first) = first_to_escape(s.as_bytes()) else {
        out.push_str(s);
        out.push('"');
        return;
    };
    let mut run_start = 0;
    for (i, b) in s.bytes().enumerate().skip(first) {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0C => "\\f",
            0..=0x1F => "",
            _ => continue,
        };
        // `i` is an ASCII byte, so both ends are character boundaries.
        out.push_str(s.get(run_start..i).unwrap_or(""));
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        } else {
            out.push_str(escape);
        }
        run_start = i + 1;
    }
    out.push_str(s.get(run_start..).unwrap_or(""));
    out.push('"');
}

/// Index of the first byte a JSON string must escape (a control character, `"` or `\\`). Eight
/// bytes at a time: most strings have none.
fn first_to_escape(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let has_zero_byte = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS != 0;
    let mut start = 0;
    for chunk in bytes.chunks_exact(8) {
        let word = crate::jsstr::word_at(chunk);
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0;
        if control
            || has_zero_byte(word ^ (ONES * u64::from(b'"')))
            || has_zero_byte(word ^ (ONES * u64::from(b'\\')))
        {
            break;
        }
        start += 8;
    }
    let tail = bytes.get(start..)?;
    let at = tail
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')?;
    Some(start + at)
}

/// Append a number as `JSON.stringify` prints it (`null` for NaN and the infinities, `0` for -0).
///
/// ```
/// let mut out = String::new();
/// memdir::json::push_number(&mut out, 1e21);
/// assert_eq!(out, "1e+21");
/// ```
pub fn push_number(out: &mut String, n: f64) {
    if !n.is_finite() {
        out.push_str("null");
    } else if n == 0.0 {
        out.push('0');
    } else if n.fract() == 0.0 && n.abs() < 1e15 {
        // Whole numbers (offsets, counts) print digit by digit, as JS prints them.
        if n < 0.0 {
            out.push('-');
        }
        let mut digits = [0u8; 16];
        let mut rest = n.abs() as u64;
        let mut len = 0;
        while rest > 0 && len < digits.len() {
            digits[len] = b'0' + (rest % 10) as u8;
            rest /= 10;
            len += 1;
        }
        out.extend(digits[..len].iter().rev().map(|&d| char::from(d)));
    } else {
        out.push_str(&crate::jsstr::js_number_to_string(n));
    }
}

/// Append `items` between `open` and `close` (`[` `]` or `{` `}`), separated by commas, each
/// written by `each`; stops at the first item `each` gives up on (`None`). The one loop of the
/// crate's JSON writers.
///
/// ```
/// let mut out = String::new();
/// let wrote = memdir::json::push_joined(&mut out, '[', ']', [1.0, 2.5], |out, n| {
///     memdir::json::push_number(out, n);
///     Some(())
/// });
/// assert_eq!((wrote, out.as_str()), (Some(()), "[1,2.5]"));
/// ```
pub fn push_joined<T>(
    out: &mut String,
    open: char,
    close: char,
    items: impl IntoIterator<Item = T>,
    mut each: impl FnMut(&mut String, T) -> Option<()>,
) -> Option<()> {
    out.push(open);
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item)?;
    }
    out.push(close);
    Some(())
}

fn push_json(out: &mut String, value: &Json) -> Option<()> {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => push_number(out, *n),
        Json::String(s) => push_string(out, s),
        Json::Array(items) => push_joined(out, '[', ']', items, push_json)?,
        Json::Object(pairs) => push_joined(out, '{', '}', pairs, |out, (key, value)| {
            push_string(out, key);
            out.push(':');
            push_json(out, value)
        })?,
    }
    Some(())
}

/// Compact JSON text (no spaces), like `JSON.stringify(value)`. Non-finite numbers print as `null`.
impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        push_json(&mut out, self).ok_or(fmt::Error)?;
        f.write_str(&out)
    }
}

/// Serialises as the matching serde data model value: `null` as unit, objects as maps (keys in
/// order; a repeated key is emitted each time). A serializer that writes unit as `null` gives
/// back the same JSON text.
impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => serializer.serialize_f64(*n),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(pairs) => {
                let mut map = serializer.serialize_map(Some(pairs.len()))?;
                for (key, value) in pairs {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Json {
        Json::String(text.to_owned())
    }

    #[test]
    fn parses_scalars_and_containers() {
        assert_eq!(parse("null"), Ok(Json::Null));
        assert_eq!(parse(" true\n"), Ok(Json::Bool(true)));
        assert_eq!(parse("-0.5e2"), Ok(Json::Number(-50.0)));
        assert_eq!(parse("0"), Ok(Json::Number(0.0)));
        assert_eq!(
            parse(r#"{"a":[1,{"b":null}],"c":"d"}"#),
            Ok(Json::Object(vec![
                (
                    "a".into(),
                    Json::Array(vec![
                        Json::Number(1.0),
                        Json::Object(vec![("b".into(), Json::Null)])
                    ])
                ),
                ("c".into(), s("d")),
            ]))
        );
        assert_eq!(parse("{}"), Ok(Json::Object(vec![])));
        assert_eq!(parse("[ ]"), Ok(Json::Array(vec![])));
    }

    #[test]
    fn rejects_what_json_rejects() {
        for bad in [
            "",
            " ",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "-",
            "'a'",
            "\"a",
            "\"\t\"",
            "[1 2]",
            "{a:1}",
            "nul",
            "truex",
            "[1]]",
            "\"\\x\"",
            "\"\\u12\"",
            "{\"a\"}",
            "NaN",
            "Infinity",
            "// c\n1",
            "\u{FEFF}1",
        ] {
            assert!(parse(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn escapes_and_surrogates() {
        assert_eq!(
            parse(r#""a\"\\\/\b\f\n\r\t\u00e9""#),
            Ok(s("a\"\\/\u{8}\u{C}\n\r\té"))
        );
        assert_eq!(parse(r#""\uD83D\uDE00""#), Ok(s("😀")));
        assert_eq!(parse(r#""\udc00""#), Ok(s("\u{FFFD}")));
        assert_eq!(parse(r#""\ud800\u0041""#), Ok(s("\u{FFFD}A")));
        assert_eq!(parse(r#""\ud800\ud800\udc00""#), Ok(s("\u{FFFD}𐀀")));
        assert_eq!(parse(r#""\ud800""#), Ok(s("\u{FFFD}")));
        assert_eq!(parse("\"ünï😀\""), Ok(s("ünï😀")));
    }

    #[test]
    fn depth_is_limited() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(parse(&deep).unwrap_err().message, "nested too deeply");
        let hostile = "{\"a\":".repeat(100_000);
        assert!(parse(&hostile).is_err());
    }

    #[test]
    fn strings_escape_wherever_the_byte_falls() {
        // Escapes before, inside and after the eight-byte chunks, against a char-by-char escape.
        let pieces = [
            "a", "é", "\"", "\\", "\n", "\u{1}", "\u{1f}", " ", "~", "😀", "\u{7f}",
        ];
        let mut state = 12345u32;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..(state % 40) {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                text.push_str(pieces[(state >> 16) as usize % pieces.len()]);
            }
            let mut expected = String::from("\"");
            for c in text.chars() {
                match c {
                    '"' => expected.push_str("\\\""),
                    '\\' => expected.push_str("\\\\"),
                    '\n' => expected.push_str("\\n"),
                    c if u32::from(c) < 0x20 => {
                        expected.push_str(&format!("\\u{:04x}", u32::from(c)))
                    }
                    c => expected.push(c),
                }
            }
            expected.push('"');
            let mut out = String::new();
            push_string(&mut out, &text);
            assert_eq!(out, expected, "{text:?}");
            assert_eq!(parse(&out).unwrap(), Json::String(text));
        }
    }

    #[test]
    fn prints_compact_json() {
        let v = parse(r#"{ "k" : [ 1.5 , -2, "x\ny\u0001", true, null ], "e": {} }"#).unwrap();
        assert_eq!(
            v.to_string(),
            r#"{"k":[1.5,-2,"x\ny\u0001",true,null],"e":{}}"#
        );
        assert_eq!(Json::Number(f64::NAN).to_string(), "null");
        assert_eq!(Json::Number(-0.0).to_string(), "0");
        // Printing then parsing gives the value back.
        assert_eq!(parse(&v.to_string()), Ok(v));
    }

    #[test]
    fn duplicate_keys_get_the_last_value() {
        let v = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(v.get("a"), Some(&Json::Number(3.0)));
        assert_eq!(v.get("z"), None);
        assert_eq!(Json::Null.get("a"), None);
    }

    fn all_finite(v: &Json) -> bool {
        match v {
            Json::Number(n) => n.is_finite(),
            Json::Array(items) => items.iter().all(all_finite),
            Json::Object(pairs) => pairs.iter().all(|(_, v)| all_finite(v)),
            _ => true,
        }
    }

    /// A cheap deterministic fuzz: random byte strings and mutations of valid documents must never
    /// panic, and whatever parses must print and re-parse to the same value.
    #[test]
    fn fuzz_never_panics_and_round_trips() {
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next();
        let alphabet: &[u8] = b"{}[]\",:\\u0123456789abcdefABCDEFtrulsn.-+eE \n\t";
        let seeds = [
            r#"{"selected_memories":["a.md","b.md"]}"#,
            r#"[1,-2.5e3,{"x":"\ud83d\ude00"},null,true]"#,
        ];
        for round in 0..20_000 {
            let mut bytes: Vec<u8> = if round % 2 == 0 {
                seeds[round % 4 / 2].as_bytes().to_vec()
            } else {
                Vec::new()
            };
            let edits = (next() % 8) as usize + 1;
            for _ in 0..edits {
                let c = alphabet[(next() % alphabet.len() as u64) as usize];
                let at = if bytes.is_empty() {
                    0
                } else {
                    (next() % bytes.len() as u64) as usize
                };
                match next() % 3 {
                    0 => bytes.insert(at, c),
                    1 if !bytes.is_empty() => {
                        bytes.remove(at);
                    }
                    _ if !bytes.is_empty() => bytes[at] = c,
                    _ => bytes.push(c),
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(v) = parse(&text) {
                if all_finite(&v) {
                    assert_eq!(parse(&v.to_string()).as_ref(), Ok(&v), "{text}");
                }
            }
        }
    }
}
