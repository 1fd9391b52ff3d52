//! A generator of frontmatter blocks in every form the fast paths read (and many near misses),
//! driven by a byte string: the fuzz equivalence check (`tests/fuzz`) feeds it libFuzzer's
//! bytes, so coverage guidance steers the shapes; the unit tests feed it a PRNG's.

/// Reads choices from the bytes; once they run out every choice is 0.
struct Choices<'a> {
    bytes: std::slice::Iter<'a, u8>,
}

impl Choices<'_> {
    /// A number below `n` (which is at least 1).
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.bytes.next().copied().unwrap_or(0)) % n.max(1)
    }

    fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items.get(self.below(items.len())).copied().unwrap_or("")
    }

    /// One time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

// The lists below are the words of the blocks; the one-line fast path's tests (`fast.rs`) draw
// their lines from them as well.

/// Keys the fast paths take.
pub(super) const KEYS: &[&str] = &[
    "name",
    "description",
    "type",
    "tags",
    "meta",
    "a",
    "k-2",
    "_x",
    "snake_case",
];

/// Keys that repeat one of [`KEYS`], YAML reads as another type, or a fast path must refuse.
pub(super) const ODD_KEYS: &[&str] = &[
    "a", "null", "True", "yes", "no", "on", "y", "2k", "-k", "k k", "é", "ké", "'q'", "\"q\"",
    "? x", "-", "",
];

/// Words of plain scalars that stay plain, and typed ones the fast path reads.
pub(super) const SAFE: &[&str] = &[
    "foo", "bar baz", "x", "a#b", "a:b", "x-y", "é", "日本", "😀", "1", "0", "-7", "42", "true",
    "False", "NULL", "~", "yes",
];

/// Pieces of plain scalars: words, and what makes YAML read them otherwise (YAML 1.1's
/// booleans and `<<`, which YAML 1.2 reads as strings, among them).
pub(super) const WORDS: &[&str] = &[
    "foo",
    "bar baz",
    "x",
    "a#b",
    "a:b",
    "x-y",
    "é",
    "日本",
    "😀",
    " ",
    "  ",
    "1",
    "0",
    "-7",
    "42",
    "007",
    "1.5",
    "1e3",
    "0x1F",
    ".5",
    "+1",
    "-",
    "true",
    "False",
    "NULL",
    "null",
    "~",
    "yes",
    "no",
    "on",
    "Off",
    "y",
    "n",
    "tRUE",
    ".inf",
    "inf",
    "nan",
    "2026-03-05",
    "12:30",
    ":",
    ": ",
    " #",
    "#",
    ",",
    "[",
    "]",
    "{",
    "}",
    "?",
    "? ",
    "&a",
    "*a",
    "!t",
    "|",
    ">",
    "%",
    "@",
    "`",
    "/",
    "=",
    "<<",
    "'",
    "\"",
    "\\",
    "\t",
    "\u{A0}",
    "\u{2028}",
    "\u{85}",
    "\u{FEFF}",
    "\u{7F}",
    "\u{1}",
    "\r",
    "---",
    "...",
    "- ",
    "http://x.y/z",
];

/// Pieces inside quoted scalars: escapes YAML has and ones it does not (cut ones too).
pub(super) const QUOTED: &[&str] = &[
    "word",
    " ",
    "  ",
    "\t",
    "é",
    "😀",
    "#",
    " #",
    ": ",
    ",",
    "]",
    "'",
    "''",
    "\"",
    "\\\"",
    "\\\\",
    "\\n",
    "\\t",
    "\\\t",
    "\\ ",
    "\\/",
    "\\0",
    "\\a",
    "\\b",
    "\\v",
    "\\f",
    "\\r",
    "\\e",
    "\\N",
    "\\_",
    "\\L",
    "\\P",
    "\\x41",
    "\\x7f",
    "\\xe9",
    "\\x4",
    "\\xZZ",
    "\\u00e9",
    "\\u2028",
    "\\uD800",
    "\\udfff",
    "\\uFFFE",
    "\\U0001F600",
    "\\U00110000",
    "\\U0000000",
    "\\q",
    "\\'",
    "\\é",
    "\\",
    "\u{1}",
    "\u{FEFF}",
];

fn spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// A line end: mostly `\n`, sometimes CRLF, trailing spaces, a tab or a comment first.
fn line_end(c: &mut Choices<'_>, out: &mut String) {
    if c.one_in(3) {
        out.push_str(c.pick(&[" ", "  ", "\t", " # note", "\t# t", "#x"]));
    }
    out.push_str(if c.one_in(5) { "\r\n" } else { "\n" });
}

fn plain(c: &mut Choices<'_>, out: &mut String) {
    for _ in 0..1 + c.below(3) {
        let words = if c.one_in(4) { WORDS } else { SAFE };
        out.push_str(c.pick(words));
    }
}

/// A quoted-scalar piece: mostly text, sometimes any escape or character.
fn piece<'s>(c: &mut Choices<'_>) -> &'s str {
    if c.one_in(3) {
        c.pick(QUOTED)
    } else {
        c.pick(SAFE)
    }
}

/// A quoted scalar opened by `quote`, maybe over several lines indented by `indent` (plus a
/// random extra, or none), maybe left open or with text after it.
fn quoted(c: &mut Choices<'_>, out: &mut String, quote: char, indent: usize) {
    out.push(quote);
    for _ in 0..c.below(6) {
        match c.below(8) {
            0 => {
                // A line break inside the scalar: escaped or not, blank lines, indentation.
                if quote == '"' && c.one_in(3) {
                    out.push('\\');
                }
                out.push_str(c.pick(&["", "", " ", "\t"]));
                for _ in 0..c.below(3) {
                    out.push_str(c.pick(&["\n", "\r\n", "\n  ", "\n\t"]));
                }
                out.push_str(if c.one_in(5) { "\r\n" } else { "\n" });
                let extra = c.below(3);
                spaces(
                    out,
                    (indent + extra).saturating_sub(usize::from(c.one_in(6))),
                );
                out.push_str(c.pick(&["", "", " ", "\t"]));
            }
            1 => out.push_str(c.pick(WORDS)),
            _ => out.push_str(piece(c)),
        }
    }
    let close = if quote == '"' { "\"" } else { "'" };
    match c.below(24) {
        0 => {}
        1 => {
            out.push_str(close);
            out.push('x');
        }
        2 => {
            out.push_str(close);
            out.push_str(close);
        }
        _ => out.push_str(close),
    }
}

/// A scalar in any style that fits on the line after `key: ` or `- `, and maybe beyond.
fn scalar(c: &mut Choices<'_>, out: &mut String, indent: usize) {
    match c.below(4) {
        0 => quoted(c, out, '"', indent + 1),
        1 => quoted(c, out, '\'', indent + 1),
        _ => plain(c, out),
    }
}

/// A block scalar header and its lines, for a key at column `indent`.
fn block_scalar(c: &mut Choices<'_>, out: &mut String, indent: usize) {
    out.push_str(c.pick(&["|", ">"]));
    let chomp = c.pick(&["", "", "-", "+"]);
    let width = c.pick(&["", "", "", "1", "2", "3", "0"]);
    if c.one_in(2) {
        out.push_str(chomp);
        out.push_str(width);
    } else {
        out.push_str(width);
        out.push_str(chomp);
    }
    line_end(c, out);
    let base = indent + 1 + c.below(3);
    for _ in 0..1 + c.below(6) {
        match c.below(10) {
            0 => {}
            1 => spaces(out, c.below(base + 3)),
            2 => {
                spaces(out, base + 1 + c.below(3));
                out.push_str(c.pick(WORDS));
            }
            3 if c.one_in(2) => {
                spaces(out, base.saturating_sub(1));
                out.push_str(c.pick(&["\tx", "x", "# c"]));
            }
            _ => {
                spaces(out, base);
                plain(c, out);
                out.push_str(c.pick(&["", "", " ", "  ", "\t"]));
            }
        }
        out.push_str(if c.one_in(5) { "\r\n" } else { "\n" });
    }
}

/// A flow sequence of scalars on one line (or, now and then, not).
fn flow(c: &mut Choices<'_>, out: &mut String) {
    out.push('[');
    out.push_str(c.pick(&["", "", " "]));
    let items = c.below(5);
    for i in 0..items {
        if i > 0 {
            out.push_str(if c.one_in(4) {
                c.pick(&[",", " , ", ",  ", ", ,", ",\n  "])
            } else {
                ", "
            });
        }
        match c.below(4) {
            0 => quoted(c, out, '"', 1),
            1 => quoted(c, out, '\'', 1),
            _ => plain(c, out),
        }
    }
    out.push_str(if c.one_in(5) {
        c.pick(&[" ]", ",]", ""])
    } else {
        "]"
    });
}

/// A block sequence at column `indent` (each item a scalar, empty, or a comment).
fn sequence(c: &mut Choices<'_>, out: &mut String, indent: usize) {
    for _ in 0..1 + c.below(4) {
        spaces(out, indent);
        out.push_str(if c.one_in(4) {
            c.pick(&["-  ", "-", "-\t", "- - "])
        } else {
            "- "
        });
        if c.one_in(6) {
            out.push_str("# c");
        } else if !c.one_in(8) {
            scalar(c, out, indent);
        }
        line_end(c, out);
        if c.one_in(8) {
            out.push_str(c.pick(&["\n", "  # between\n", "#c\n", " \n"]));
        }
    }
}

/// Mapping entries at column `indent`, `depth` levels down.
fn entries(c: &mut Choices<'_>, out: &mut String, indent: usize, depth: usize) {
    for _ in 0..1 + c.below(4) {
        if c.one_in(8) {
            out.push_str(c.pick(&["\n", "# comment\n", "   # indented\n", "  \n", "\t\n"]));
        }
        spaces(out, indent);
        let keys = if c.one_in(8) { ODD_KEYS } else { KEYS };
        out.push_str(c.pick(keys));
        if c.one_in(6) {
            out.push_str(c.pick(&[":  ", ":", ":\t", " : "]));
        } else {
            out.push_str(": ");
        }
        match c.below(10) {
            0 => quoted(c, out, '"', indent + 1),
            1 => quoted(c, out, '\'', indent + 1),
            2 => block_scalar(c, out, indent),
            3 => flow(c, out),
            4 => {
                line_end(c, out);
                let at = if c.one_in(2) {
                    indent
                } else {
                    indent + 1 + c.below(3)
                };
                sequence(c, out, at);
                continue;
            }
            5 if depth < 5 => {
                line_end(c, out);
                let at = indent + 1 + c.below(4);
                entries(c, out, at, depth + 1);
                continue;
            }
            6 => {}
            _ => plain(c, out),
        }
        line_end(c, out);
    }
}

/// A frontmatter block built from `choices` (one byte a decision): mapping entries with plain,
/// double- and single-quoted (escapes, several lines), block (`|`, `>`, chomping and
/// indentation indicators) and flow-sequence values, block sequences, nested mappings,
/// comments, blank lines, trailing spaces, tabs, CRLF and non-ASCII text, and near misses of
/// each. For the fuzz equivalence check of the fast paths against serde_yaml.
///
/// ```
/// use memdir::frontmatter::{fast_path_against_yaml, sample_block};
/// let block = sample_block(&[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]);
/// assert!(!block.is_empty());
/// assert!(!matches!(fast_path_against_yaml(&block), Some(Err(_))));
/// ```
#[doc(hidden)]
pub fn sample_block(choices: &[u8]) -> String {
    let mut c = Choices {
        bytes: choices.iter(),
    };
    let mut out = String::new();
    entries(&mut c, &mut out, 0, 0);
    out
}
