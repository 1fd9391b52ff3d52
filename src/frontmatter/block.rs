//! The widened fast path (issue #17): headers beyond one-line `key: value` that YAML reads the
//! same way every time, read without the YAML parser. It takes
//!
//! * double-quoted scalars with every YAML escape and single-quoted scalars, over several lines
//!   too (line folding, escaped line breaks);
//! * block literal `|` and folded `>` scalars with a chomping (`-`, `+`) and an indentation
//!   indicator, as mapping values;
//! * block sequences (`- a`, indented or not) and one-line flow sequences (`[a, "b"]`) of plain
//!   and quoted scalars;
//! * nested block mappings of all these, [`MAX_DEPTH`] levels below the top;
//! * plain scalars typed as serde_yaml types them, where that is certain: `null`/`Null`/`NULL`/
//!   `~` and nothing are null, `true`/`True`/`TRUE` and the `false` forms booleans, decimal
//!   integers without a leading zero numbers, anything else that could be a number (a digit,
//!   `+`, `-` or `.` first) left to the parser;
//! * blank lines, comment lines and trailing comments, CRLF line ends.
//!
//! Anything else — a tab in indentation, a multi-line plain scalar, a repeated key, anchors,
//! tags, flow mappings, a block scalar without content — gives `None`, and the block goes to
//! serde_yaml. The result is a small tree of its own ([`Node`]), borrowed from the block
//! where nothing had to be undone: the JS answer is written straight from it
//! ([`push_entries`]), and the scan's mapping is built from it only when asked for
//! ([`parse_block`]). The fuzz equivalence check (`tests/fuzz`,
//! [`super::fast_path_against_yaml`]) and the property test below hold the result to
//! serde_yaml's, values and types.

use super::fast::{is_plain_key, is_plain_value, is_yaml_printable};
use crate::json::{push_joined, push_number, push_string};
use serde_yaml::{Mapping, Value};
use std::borrow::Cow;

/// Nested block mappings the fast path reads below the top level.
pub(super) const MAX_DEPTH: usize = 4;

/// A value the fast path read, borrowed from the block where nothing had to be undone.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Node<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Str(Cow<'a, str>),
    Seq(Vec<Node<'a>>),
    Map(Entries<'a>),
}

/// A mapping's entries in order; keys are unique.
pub(super) type Entries<'a> = Vec<(&'a str, Node<'a>)>;

/// Up to this many keys, repeats are found by comparing each new key with those before it;
/// past it, by one sort at the end (a block of thousands of keys does not cost their square).
const FEW_KEYS: usize = 16;

/// Indentation of a line whose first non-space character is a tab: never read.
const TAB: usize = usize::MAX;

/// The block's lines (without `\n` or `\r\n`, each with whether a line break ended it) and the
/// next one to read.
#[derive(Default)]
struct Reader<'a> {
    lines: Vec<(&'a str, bool)>,
    pos: usize,
}

/// The entries of `block` when the fast path can read all of it, else `None` (see the module
/// documentation). Blocks over [`super::MAX_YAML_BYTES`] are left to the caps.
pub(super) fn parse_block(block: &str) -> Option<Mapping> {
    parse_entries(block).map(to_mapping)
}

/// The entries of `block` as [`parse_block`] reads them, before any mapping is built.
pub(super) fn parse_entries(block: &str) -> Option<Entries<'_>> {
    if block.len() > super::MAX_YAML_BYTES || !clean(block) {
        return None;
    }
    let breaks = block.bytes().filter(|&b| b == b'\n').count();
    let mut reader = Reader {
        lines: Vec::with_capacity(breaks + 1),
        pos: 0,
    };
    for (n, piece) in block.split('\n').enumerate() {
        let has_break = n < breaks;
        if !has_break && piece.is_empty() {
            break;
        }
        // `clean` let a `\r` through only before a `\n`.
        let line = match piece.as_bytes().last() {
            Some(b'\r') => piece.get(..piece.len() - 1)?,
            _ => piece,
        };
        reader.lines.push((line, has_break));
    }
    let entries = reader.map(0, 0)?;
    (reader.peek().is_none() && !entries.is_empty()).then_some(entries)
}

/// Only characters YAML reads (a `\r` only before `\n`): one pass, ASCII a byte at a time.
fn clean(block: &str) -> bool {
    let bytes = block.as_bytes();
    let mut ascii = true;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\t' | b'\n' | 0x20..=0x7E => {}
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {}
            0x80.. => ascii = false,
            _ => return false,
        }
    }
    ascii || block.chars().all(|c| c.is_ascii() || is_yaml_printable(c))
}

/// Leading spaces of a line.
fn indent(line: &str) -> usize {
    line.bytes().take_while(|&b| b == b' ').count()
}

/// `s` after its leading spaces (and tabs, with `tabs`). Byte loops rather than `char`
/// patterns: the size-optimised build does not inline those.
fn skip(s: &str, tabs: bool) -> &str {
    let n = s
        .bytes()
        .take_while(|&b| b == b' ' || (tabs && b == b'\t'))
        .count();
    s.get(n..).unwrap_or_default()
}

fn first(s: &str) -> Option<u8> {
    s.as_bytes().first().copied()
}

/// What may follow a value on its line: nothing, or whitespace and a comment.
fn end_of_line(rest: &str) -> Option<()> {
    let after = skip(rest, true);
    (after.is_empty() || (first(after) == Some(b'#') && after.len() < rest.len())).then_some(())
}

impl<'a> Reader<'a> {
    /// The next line that is not blank or a comment, with its indentation ([`TAB`] when a tab
    /// comes first); the lines skipped are consumed.
    fn peek(&mut self) -> Option<(usize, &'a str)> {
        while let Some(&(line, _)) = self.lines.get(self.pos) {
            let rest = skip(line, false);
            if matches!(first(rest), None | Some(b'#')) {
                self.pos += 1;
                continue;
            }
            let at = if first(rest) == Some(b'\t') {
                TAB
            } else {
                line.len() - rest.len()
            };
            return Some((at, line));
        }
        None
    }

    /// Whether the line just read ended with a line break.
    fn broke(&self) -> bool {
        self.pos
            .checked_sub(1)
            .and_then(|at| self.lines.get(at))
            .is_some_and(|line| line.1)
    }

    /// A block mapping whose keys sit at column `p`, up to the first line indented less.
    fn map(&mut self, p: usize, depth: usize) -> Option<Entries<'a>> {
        let mut entries: Entries<'a> = Vec::with_capacity(4);
        while let Some((at, line)) = self.peek() {
            if at < p {
                break;
            }
            if at != p {
                return None;
            }
            self.pos += 1;
            let line = line.get(p..)?;
            let colon = line.bytes().position(|b| b == b':')?;
            let (key, after) = (line.get(..colon)?, line.get(colon + 1..)?);
            // libyaml reads a key of at most 1,024 characters.
            if !is_plain_key(key) || key.len() > 1000 {
                return None;
            }
            if entries.len() < FEW_KEYS && entries.iter().any(|(seen, _)| *seen == key) {
                return None;
            }
            let value = match first(after) {
                Some(b' ') => self.value(skip(after, false), p, depth)?,
                None => self.nested(p, depth)?,
                _ => return None,
            };
            entries.push((key, value));
        }
        if entries.len() > FEW_KEYS {
            let mut keys: Vec<&str> = entries.iter().map(|(key, _)| *key).collect();
            crate::sort::sort(&mut keys);
            if keys.windows(2).any(|pair| pair.first() == pair.last()) {
                return None;
            }
        }
        Some(entries)
    }

    /// The value after `key: ` on a line of a mapping at column `p`.
    fn value(&mut self, v: &'a str, p: usize, depth: usize) -> Option<Node<'a>> {
        match v.as_bytes().first() {
            None | Some(b'#') => self.nested(p, depth),
            Some(&q @ (b'"' | b'\'')) => self.quoted_value(v, q, p),
            Some(b'|' | b'>') => self.block_scalar(v, p).map(|s| Node::Str(Cow::Owned(s))),
            Some(b'[') => {
                let (items, rest) = flow_sequence(v.get(1..)?)?;
                end_of_line(rest)?;
                Some(Node::Seq(items))
            }
            _ => plain(v, false),
        }
    }

    /// A quoted scalar that opens `v` and ends its line (after the lines it spans).
    fn quoted_value(&mut self, v: &'a str, q: u8, p: usize) -> Option<Node<'a>> {
        let (value, rest) = self.quoted(v.get(1..)?, q, p + 1)?;
        end_of_line(rest)?;
        Some(Node::Str(value))
    }

    /// The value of `key:` with nothing after it on the line: a block sequence (at column `p`
    /// or deeper), a nested mapping (deeper), or null.
    fn nested(&mut self, p: usize, depth: usize) -> Option<Node<'a>> {
        let Some((at, line)) = self.peek() else {
            return Some(Node::Null);
        };
        if at == TAB {
            return None;
        }
        let rest = line.get(at..)?;
        if at >= p && (rest == "-" || rest.starts_with("- ")) {
            return self.sequence(at).map(Node::Seq);
        }
        if at > p {
            return (depth < MAX_DEPTH)
                .then(|| self.map(at, depth + 1))?
                .map(Node::Map);
        }
        Some(Node::Null)
    }

    /// A block sequence of scalars whose `-` sit at column `c`.
    fn sequence(&mut self, c: usize) -> Option<Vec<Node<'a>>> {
        let mut items = Vec::new();
        while let Some((at, line)) = self.peek() {
            if at < c {
                break;
            }
            if at > c {
                return None;
            }
            let rest = line.get(c..)?;
            let item = match rest.strip_prefix("- ") {
                Some(item) => skip(item, false),
                None if rest == "-" => "",
                None => break,
            };
            self.pos += 1;
            items.push(match item.as_bytes().first() {
                None | Some(b'#') => Node::Null,
                Some(&q @ (b'"' | b'\'')) => self.quoted_value(item, q, c)?,
                _ => plain(item, false)?,
            });
        }
        Some(items)
    }

    /// A quoted scalar (`q` is `"` or `'`) from `first`, what follows its opening quote on the
    /// line just read: the string and what follows the closing quote on its line. Line breaks
    /// fold as YAML folds them; a continuation line must be indented `min_indent` spaces.
    fn quoted(
        &mut self,
        first: &'a str,
        q: u8,
        min_indent: usize,
    ) -> Option<(Cow<'a, str>, &'a str)> {
        let double = q == b'"';
        let special = |s: &str| s.bytes().position(|b| b == q || (double && b == b'\\'));
        // The common case: closed on this line, nothing to undo.
        if let Some(at) = special(first) {
            let bytes = first.as_bytes();
            if bytes.get(at) == Some(&q) && (double || bytes.get(at + 1) != Some(&b'\'')) {
                return Some((Cow::Borrowed(first.get(..at)?), first.get(at + 1..)?));
            }
        }
        let mut out = String::with_capacity(first.len());
        let mut segment = first;
        loop {
            // Trailing whitespace before a line break is dropped, but not what escapes gave.
            let mut kept = out.len();
            let mut escaped_break = false;
            let mut rest = segment;
            while let Some(at) = special(rest) {
                out.push_str(rest.get(..at)?);
                let tail = rest.get(at + 1..)?;
                if rest.as_bytes().get(at) == Some(&q) {
                    match tail.strip_prefix('\'') {
                        Some(after) if !double => {
                            out.push('\'');
                            rest = after;
                        }
                        _ => return Some((Cow::Owned(out), tail)),
                    }
                } else if tail.is_empty() {
                    escaped_break = true;
                } else {
                    let (c, used) = escape(tail)?;
                    out.push(c);
                    rest = tail.get(used..)?;
                }
                kept = out.len();
                if escaped_break {
                    rest = "";
                    break;
                }
            }
            out.push_str(rest);
            if !escaped_break {
                // Only this line's text is looked at (what came before is settled): linear.
                let line = out.get(kept..)?;
                let trimmed = kept + line.trim_end_matches([' ', '\t']).len();
                out.truncate(trimmed);
            }
            if !self.broke() {
                return None;
            }
            let mut breaks = 0;
            loop {
                let &(line, _) = self.lines.get(self.pos)?;
                self.pos += 1;
                let content = skip(line, true);
                if !content.is_empty() {
                    if indent(line) < min_indent {
                        return None;
                    }
                    segment = content;
                    break;
                }
                if !self.broke() {
                    return None;
                }
                breaks += 1;
            }
            if breaks == 0 && !escaped_break {
                out.push(' ');
            }
            for _ in 0..breaks {
                out.push('\n');
            }
        }
    }

    /// A block scalar (`|` or `>` header `v`, the value of a key at column `p`).
    fn block_scalar(&mut self, v: &'a str, p: usize) -> Option<String> {
        let folded = v.starts_with('>');
        let mut chomp = 0i8;
        let mut width = 0;
        let mut header = v.get(1..)?;
        for _ in 0..2 {
            match header.as_bytes().first() {
                Some(b'-') if chomp == 0 => chomp = -1,
                Some(b'+') if chomp == 0 => chomp = 1,
                Some(&d @ b'1'..=b'9') if width == 0 => width = usize::from(d - b'0'),
                _ => break,
            }
            header = header.get(1..)?;
        }
        end_of_line(header)?;
        if !self.broke() {
            return None;
        }
        // Content indentation: the indicator's, or the first non-empty line's.
        let mut at = if width > 0 { p + width } else { 0 };
        let mut out = String::new();
        let (mut leading_break, mut leading_blank, mut any) = (false, false, false);
        let (mut breaks, mut deepest_blank) = (0, 0);
        while let Some(&(line, has_break)) = self.lines.get(self.pos) {
            let spaces = indent(line);
            let rest = line.get(spaces..)?;
            if rest.is_empty() && (at == 0 || spaces <= at) {
                deepest_blank = deepest_blank.max(spaces);
                self.pos += 1;
                breaks += usize::from(has_break);
                continue;
            }
            if at == 0 {
                if first(rest) == Some(b'\t') || spaces <= p || deepest_blank > spaces {
                    return None;
                }
                at = spaces;
            }
            if spaces < at {
                if first(rest) == Some(b'\t') {
                    return None;
                }
                break;
            }
            let text = line.get(at..)?;
            let blank = matches!(first(text), Some(b' ' | b'\t'));
            if folded && leading_break && !leading_blank && !blank {
                if breaks == 0 {
                    out.push(' ');
                }
                leading_break = false;
            }
            for _ in 0..breaks + usize::from(leading_break) {
                out.push('\n');
            }
            out.push_str(text);
            (leading_break, leading_blank, any, breaks) = (has_break, blank, true, 0);
            self.pos += 1;
        }
        if !any {
            return None;
        }
        let tail = match chomp {
            -1 => 0,
            0 => usize::from(leading_break),
            _ => usize::from(leading_break) + breaks,
        };
        for _ in 0..tail {
            out.push('\n');
        }
        Some(out)
    }
}

/// A one-line quoted scalar, given what follows its opening quote: the string and what follows
/// the closing quote.
pub(super) fn one_line_quoted(after_quote: &str, q: u8) -> Option<(Cow<'_, str>, &str)> {
    Reader::default().quoted(after_quote, q, 0)
}

/// The character a double-quoted escape stands for, given what follows the backslash, and the
/// bytes it used; `None` for anything that is not one of YAML's escapes.
fn escape(tail: &str) -> Option<(char, usize)> {
    let e = tail.chars().next()?;
    let c = match e {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\u{B}',
        'f' => '\u{C}',
        'r' => '\r',
        'e' => '\u{1B}',
        ' ' | '"' | '/' | '\\' => e,
        'N' => '\u{85}',
        '_' => '\u{A0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        'x' | 'u' | 'U' => {
            let digits = match e {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let hex = tail.get(1..1 + digits)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            return Some((
                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?,
                1 + digits,
            ));
        }
        _ => return None,
    };
    Some((c, e.len_utf8()))
}

/// A one-line flow sequence of scalars, given what follows its `[`: the items and what follows
/// the `]`.
fn flow_sequence(after_bracket: &str) -> Option<(Vec<Node<'_>>, &str)> {
    let mut items = Vec::new();
    let mut rest = skip(after_bracket, false);
    if let Some(after) = rest.strip_prefix(']') {
        return Some((items, after));
    }
    loop {
        if let Some(&q @ (b'"' | b'\'')) = rest.as_bytes().first() {
            let (value, after) = one_line_quoted(rest.get(1..)?, q)?;
            items.push(Node::Str(value));
            rest = skip(after, false);
        } else {
            let end = rest.bytes().position(|b| b == b',' || b == b']')?;
            items.push(plain(rest.get(..end)?, true)?);
            rest = rest.get(end..)?;
        }
        match rest.as_bytes().first() {
            Some(b',') => {
                rest = skip(rest.get(1..)?, false);
                if rest.starts_with(']') {
                    return None;
                }
            }
            Some(b']') => return Some((items, rest.get(1..)?)),
            _ => return None,
        }
    }
}

/// A plain scalar (`flow`: inside `[…]`), typed as serde_yaml types it, when that is certain.
fn plain(v: &str, flow: bool) -> Option<Node<'_>> {
    let comment = v.as_bytes().windows(2).position(|pair| pair == b" #");
    let v = match comment {
        Some(at) if !flow => v.get(..at)?,
        _ => v,
    };
    let v = v.trim_end_matches(' ');
    match v {
        "null" | "Null" | "NULL" | "~" => return Some(Node::Null),
        "true" | "True" | "TRUE" => return Some(Node::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Node::Bool(false)),
        _ => {}
    }
    let digits = v.strip_prefix('-').unwrap_or(v);
    let decimal = (1..=18).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (!digits.starts_with('0') || v == "0");
    if decimal {
        return v.parse::<i64>().ok().map(Node::Int);
    }
    let flow_safe = !flow || !v.contains(['[', ']', '{', '}', ',', ':', '?', '#']);
    (flow_safe && is_plain_value(v)).then_some(Node::Str(Cow::Borrowed(v)))
}

impl Node<'_> {
    /// The value serde_yaml reads.
    pub(super) fn into_value(self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            Node::Int(n) => Value::Number(n.into()),
            Node::Str(s) => Value::String(s.into_owned()),
            Node::Seq(items) => Value::Sequence(items.into_iter().map(Node::into_value).collect()),
            Node::Map(entries) => Value::Mapping(to_mapping(entries)),
        }
    }

    /// The value as JSON, as [`super::FrontmatterHead::to_js_json`] writes serde_yaml's.
    fn push_json(&self, out: &mut String) -> Option<()> {
        match self {
            Node::Null => out.push_str("null"),
            Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Node::Int(n) => push_number(out, *n as f64),
            Node::Str(s) => push_string(out, s),
            Node::Seq(items) => push_joined(out, '[', ']', items, |out, item| item.push_json(out))?,
            Node::Map(entries) => push_entries(out, entries)?,
        }
        Some(())
    }
}

/// The mapping of entries [`parse_entries`] read.
fn to_mapping(entries: Entries<'_>) -> Mapping {
    let mut mapping = Mapping::with_capacity(entries.len());
    for (key, value) in entries {
        mapping.insert(Value::String(key.to_owned()), value.into_value());
    }
    mapping
}

/// Entries as a JSON object (always written: `Some`).
pub(super) fn push_entries(out: &mut String, entries: &[(&str, Node<'_>)]) -> Option<()> {
    push_joined(out, '{', '}', entries, |out, (key, value)| {
        push_string(out, key);
        out.push(':');
        value.push_json(out)
    })
}

#[cfg(test)]
mod tests {
    use super::super::fast::parse_plain_block;
    use super::super::sample::sample_block;
    use super::super::yaml::parse_lenient;
    use super::*;

    /// The fast path's mapping of `block`, checked equal to serde_yaml's.
    fn fast(block: &str) -> Value {
        let mapping = parse_plain_block(block).unwrap_or_else(|| panic!("not taken: {block:?}"));
        let yaml = parse_lenient(block).unwrap().value;
        assert_eq!(Value::Mapping(mapping.clone()), yaml, "{block:?}");
        Value::Mapping(mapping)
    }

    fn yaml(text: &str) -> Value {
        serde_yaml::from_str(text).unwrap()
    }

    #[test]
    fn multi_line_quoted_scalars_fold() {
        let v = fast("a: \"one\n  two  \n\n   three\\\n   four\\t\n  five\"\nb: x\n");
        assert_eq!(v["a"], Value::from("one two\nthreefour\t five"));
        let v = fast(
            "a: 'it''s\n  a \n\n\n  test' # c\r\nb: \"\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\e\\0\"",
        );
        assert_eq!(v["a"], Value::from("it's a\n\ntest"));
        assert_eq!(
            v["b"],
            Value::from("A\u{e9}\u{1F600}\u{85}\u{A0}\u{2028}\u{2029}\u{1B}\0")
        );
        let v = fast("a: \"x\\ \n  y\"\nb: \"tab\there\"");
        assert_eq!(v["a"], Value::from("x  y"));
        assert_eq!(v["b"], Value::from("tab\there"));
    }

    #[test]
    fn block_scalars_chomp_and_fold() {
        let cases = [
            (
                "a: |\n  one\n   two\n\n  three\n\n\nb: x",
                "one\n two\n\nthree\n",
            ),
            ("a: |-\n  one\n  two\n\n", "one\ntwo"),
            ("a: |+\n  one\n\n\nb: x", "one\n\n\n"),
            (
                "a: >\n  one\n  two\n\n  three\n    more\n  four\n",
                "one two\nthree\n  more\nfour\n",
            ),
            ("a: >-\n  folded text\n  goes on\n", "folded text goes on"),
            ("a: |2\n    deeper\n  base\n", "  deeper\nbase\n"),
            ("a: >+1 # c\r\n x\r\n\r\n", "x\n\n"),
            (
                "a: |\n  tab\there\n  # not a comment\n# a comment\n",
                "tab\there\n# not a comment\n",
            ),
        ];
        for (block, expected) in cases {
            assert_eq!(fast(block)["a"], Value::from(expected), "{block:?}");
        }
        // Nested: the indentation indicator counts from the nested mapping's column.
        let v = fast("m:\n  k: |1\n    x\n  j: y\n");
        assert_eq!(v["m"]["k"], Value::from(" x\n"));
    }

    #[test]
    fn sequences_and_nested_maps_with_typed_scalars() {
        let v = fast(
            "tags: [a, b c, \"c: d\", 'e''f', 1, -2, true, ~]\nrelated:\n  - one\n  -\n  - \"two\n    lines\" # c\n  - # c\nlist:\n- null\n- FALSE\nmeta:\n  owner: me\n  since: 2024\n\n  deep:\n    k: v\n    e: []\n  # comment\n  n:\nz: 0\n",
        );
        let expected = yaml(
            "tags: [a, b c, 'c: d', e'f, 1, -2, true, null]\nrelated: [one, null, two lines, null]\nlist: [null, false]\nmeta: {owner: me, since: 2024, deep: {k: v, e: []}, n: null}\nz: 0",
        );
        assert_eq!(v, expected);
    }

    #[test]
    fn leaves_the_rest_to_yaml() {
        for block in [
            "a: |\nb: x",                                                // no content
            "a: |\n\n  \n",                                              // only blank lines
            "a: |\n    \n  x\n", // a leading blank line deeper than the text
            "a: |\n  \tx\n",     // a tab where indentation is detected
            "a: |0\n x\n",       // no such indicator
            "a: |x\n x\n",       // text after the header
            "a: |#c\n x\n",      // a comment without a space
            "a: |\nx\n",         // text not indented
            "a: \"x\ny\"",       // continuation not indented
            "a: 'x",             // never closed
            "a: \"x\n",          // never closed
            "a: [a, b,]",        // trailing comma
            "a: [a, [b]]",       // nested flow
            "a: [a\n  , b]",     // flow over lines
            "a: [a: b]",         // a flow pair
            "a: [a #c]",         // a comment inside
            "a: {b: c}",         // flow mapping
            "a:\n  - - x",       // nested sequence
            "a:\n  - b: c",      // mapping in a sequence
            "a:\n  - |\n    x",  // block scalar in a sequence
            "a:\n  - x\n   - y", // misaligned items
            "a:\n  - x\n  y",    // continuation of an item
            "a:\n  b: x\n c: y", // a line between two indentations
            "a:\n\tb: x",        // tab indentation
            "a: x\n  more",      // multi-line plain scalar
            "a:\n  more text",   // plain scalar on the next line
            "a: &x y\nb: *x",    // anchor and alias
            "a: !t x",           // tag
            "a: 1.5\nb: 0x1F\nc: 012\nd: +3", // numbers not certain
            "a: 1234567890123456789", // beyond the short integers
            "a:\n  b:\n    c:\n      d:\n        e:\n          f: deep", // past MAX_DEPTH
            "a: x\n...\n",       // document end
            "m:\n  k: v\n  k: w", // repeated nested key
            "? a\n: b",          // explicit key
        ] {
            assert_eq!(parse_block(block), None, "{block:?}");
        }
        // The same depth within the limit is taken.
        fast("a:\n  b:\n    c:\n      d:\n        e: deep");
    }

    #[test]
    fn json_and_header_match_the_mapping_route() {
        use crate::frontmatter::{head_for_js, parse_frontmatter_head, HeadForJs};
        let text = "---\nname: \"Rule\\n 1\"\ndescription: [a, 1, null]\ntype: >-\n  user\nm:\n  x: 2\n---\nBody";
        let head = parse_frontmatter_head(text, true).unwrap();
        assert_eq!(head.header.description.as_deref(), Some("a,1,"));
        assert_eq!(head.header.memory_type, Some(crate::MemoryType::User));
        let HeadForJs::Json(json) = head_for_js(text, true) else {
            panic!("JSON expected")
        };
        assert_eq!(Some(json), head.to_js_json(head.body_start));
    }

    /// A small deterministic generator (xorshift64*) for the bytes `sample_block` reads.
    fn bytes(state: &mut u64, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                *state ^= *state >> 12;
                *state ^= *state << 25;
                *state ^= *state >> 27;
                (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
            })
            .collect()
    }

    #[test]
    fn widened_fast_path_agrees_with_serde_yaml() {
        let mut state = 0x9E37_79B9_7F4A_7C15;
        let mut taken = [0usize; 7];
        let cases = 30_000;
        for _ in 0..cases {
            let block = sample_block(&bytes(&mut state, 160));
            let Some(mapping) = parse_plain_block(&block) else {
                continue;
            };
            let parsed = parse_lenient(&block)
                .unwrap_or_else(|e| panic!("fast path took {block:?}, YAML rejects it: {e}"));
            assert!(parsed.duplicate_keys.is_empty(), "{block:?}");
            let forms = [": \"", ": '", ": |", ": >", "- ", ": ["];
            for (count, form) in taken.iter_mut().zip(forms) {
                *count += usize::from(block.contains(form));
            }
            taken[6] += usize::from(mapping.values().any(Value::is_mapping));
            assert_eq!(Value::Mapping(mapping), parsed.value, "{block:?}");
        }
        // Every widened form must reach the fast path, not only its refusals.
        for (count, form) in taken.iter().zip(["\"", "'", "|", ">", "-", "[", "nested"]) {
            assert!(
                *count > cases / 200,
                "only {count} blocks with {form}: {taken:?}"
            );
        }
    }
}
