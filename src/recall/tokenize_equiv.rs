//! The tokeniser against the one it replaced (kept here, test-only, as the reference): the
//! same terms, in the same order, with the same raw words, over every text of the recall
//! evaluation fixture and over random strings built to hit the edge cases (joiners at the ends,
//! case turns, digits, non-ASCII letters and case, stop words, inflections).

use super::{
    for_each_identifier, for_each_identifier_keyed, for_each_term_raw, identifier_terms, packed,
    Scratch,
};
use crate::test_rng::XorShift;

/// The tokeniser as it was before identifiers were cut out for the ranker's cache.
mod reference {
    /// Characters that join the parts of one identifier: `snake_case`, `kebab-case`, dotted names,
    /// paths, `std::io`, `user@host`.
    fn is_joiner(c: char) -> bool {
        matches!(c, '_' | '-' | '.' | '/' | '\\' | ':' | '@')
    }

    /// Reusable buffers of [`for_each_term_raw`].
    #[derive(Default)]
    struct Scratch {
        /// `(start, end)` byte ranges of the current identifier's parts.
        parts: Vec<(usize, usize)>,
        word: String,
        raw: String,
    }

    /// Every term of `text`, in order, with its word before stemming (for a whole identifier,
    /// the term itself).
    pub(super) fn for_each_term_raw(text: &str, mut f: impl FnMut(&str, &str)) {
        let mut scratch = Scratch::default();
        let mut start: Option<usize> = None;
        let bytes = text.as_bytes();
        let mut pos = 0;
        while let Some(&b) = bytes.get(pos) {
            // ASCII is classified byte by byte; other characters are decoded.
            let (inside, width) = if b.is_ascii() {
                (b.is_ascii_alphanumeric() || is_joiner(char::from(b)), 1)
            } else {
                match text.get(pos..).and_then(|rest| rest.chars().next()) {
                    Some(c) => (c.is_alphanumeric(), c.len_utf8()),
                    None => break,
                }
            };
            match (inside, start) {
                (true, None) => start = Some(pos),
                (false, Some(s)) => {
                    identifier(text.get(s..pos).unwrap_or_default(), &mut scratch, &mut f);
                    start = None;
                }
                _ => {}
            }
            pos += width;
        }
        if let Some(s) = start {
            identifier(text.get(s..).unwrap_or_default(), &mut scratch, &mut f);
        }
    }

    /// Emit the terms of one identifier (see [`for_each_term`]).
    fn identifier(raw: &str, scratch: &mut Scratch, f: &mut impl FnMut(&str, &str)) {
        let ident = raw.trim_matches(is_joiner);
        if ident.is_empty() {
            return;
        }
        // The common case: one lower-case ASCII word.
        if ident
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        {
            scratch.word.clear();
            scratch.word.push_str(ident);
            emit_word(&mut scratch.word, &mut scratch.raw, f);
            return;
        }
        split_parts(ident, &mut scratch.parts);
        let word = &mut scratch.word;
        if scratch.parts.len() > 1 {
            whole(ident, word);
            if word.chars().nth(1).is_some() {
                f(word, word);
            }
            let segment = ident
                .rfind(['/', '\\'])
                .and_then(|cut| ident.get(cut + 1..))
                .unwrap_or_default();
            if segment.contains(|c: char| !c.is_alphanumeric()) {
                whole(segment, word);
                f(word, word);
            }
        }
        for &(s, e) in &scratch.parts {
            word.clear();
            for c in ident.get(s..e).unwrap_or_default().chars() {
                crate::case::push_lowercase(word, c);
            }
            emit_word(word, &mut scratch.raw, f);
        }
    }

    /// `text` lower-cased without `_` and `-`, into `out`.
    fn whole(text: &str, out: &mut String) {
        out.clear();
        for c in text.chars().filter(|&c| c != '_' && c != '-') {
            crate::case::push_lowercase(out, c);
        }
    }

    /// A lower-cased word: skipped if a single character or a stop word, else stemmed and emitted
    /// (with a copy of the word before stemming, kept in `raw`).
    fn emit_word(word: &mut String, raw: &mut String, f: &mut impl FnMut(&str, &str)) {
        if word.chars().nth(1).is_some() && !super::super::is_stop_word(word) {
            raw.clear();
            raw.push_str(word);
            super::super::stem_in_place(word);
            f(word, raw);
        }
    }

    /// The byte ranges of the parts of `ident`: runs of alphanumerics, split where the (ASCII) case
    /// turns (`camelCase` → `camel`, `Case`; `HTTPServer` → `HTTP`, `Server`), never between a letter
    /// and a digit.
    fn split_parts(ident: &str, parts: &mut Vec<(usize, usize)>) {
        parts.clear();
        let mut start: Option<usize> = None;
        let mut chars = ident.char_indices().peekable();
        let mut prev: Option<char> = None;
        while let Some((i, c)) = chars.next() {
            if !c.is_alphanumeric() {
                if let Some(s) = start.take() {
                    parts.push((s, i));
                }
                prev = None;
                continue;
            }
            if let (Some(s), Some(p)) = (start, prev) {
                // `camelCase`, `HTTPServer`, `base64Encode`; not `I2C`, `2FA`. ASCII only (code
                // identifiers; and no Unicode case tables in the module for it).
                let next_lower = chars.peek().is_some_and(|&(_, n)| n.is_ascii_lowercase());
                let turn = c.is_ascii_uppercase()
                    && (p.is_ascii_lowercase()
                        || ((p.is_ascii_uppercase() || p.is_ascii_digit()) && next_lower));
                if turn {
                    parts.push((s, i));
                    start = Some(i);
                }
            }
            if start.is_none() {
                start = Some(i);
            }
            prev = Some(c);
        }
        if let Some(s) = start {
            parts.push((s, ident.len()));
        }
    }
}

/// Every (term, raw word) of `text`, by the tokeniser under test.
fn terms_new(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for_each_term_raw(text, |t, r| out.push((t.to_owned(), r.to_owned())));
    out
}

/// The same by the reference.
fn terms_old(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    reference::for_each_term_raw(text, |t, r| out.push((t.to_owned(), r.to_owned())));
    out
}

/// The terms of `text` identifier by identifier, concatenated: what the ranker's cache adds up.
fn terms_by_identifier(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut scratch = Scratch::default();
    for_each_identifier(text, |ident| {
        assert!(!ident.is_empty());
        identifier_terms(ident, &mut scratch, &mut |t: &str, r: &str| {
            out.push((t.to_owned(), r.to_owned()));
        });
    });
    out
}

fn assert_same(text: &str) -> usize {
    // The key given with each identifier is its packed value.
    for_each_identifier_keyed(text, |ident, key| {
        assert_eq!(key, packed(ident).unwrap_or(0), "{ident:?} in {text:?}");
    });
    let want = terms_old(text);
    assert_eq!(terms_new(text), want, "{text:?}");
    assert_eq!(terms_by_identifier(text), want, "{text:?}");
    want.len()
}

/// Every file of the recall evaluation fixture (memories, indexes, queries, README).
fn fixture_texts() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall_eval");
    let mut dirs = vec![root];
    let mut texts = Vec::new();
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        crate::sort::sort(&mut entries);
        for path in entries {
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                texts.push(text);
            }
        }
    }
    texts
}

#[test]
fn fixture_texts_tokenise_as_before() {
    let texts = fixture_texts();
    assert!(texts.len() > 150, "{} files", texts.len());
    let mut terms = 0;
    for text in &texts {
        terms += assert_same(text);
        // Line by line too: other starts and ends of identifiers.
        for line in text.lines() {
            assert_same(line);
        }
    }
    assert!(terms > 15_000, "{terms} terms");
}

/// Pieces random strings are made of: ASCII classes, joiners, words that stop, inflect or turn
/// case, and non-ASCII letters, digits, marks and symbols (including the one character whose
/// lower case is two, and final sigma).
const PIECES: &[&str] = &[
    "a",
    "B",
    "z",
    "Q",
    "0",
    "7",
    "_",
    "-",
    ".",
    "/",
    "\\",
    ":",
    "@",
    " ",
    "\n",
    "\t",
    "\r",
    ",",
    "!",
    "?",
    "(",
    ")",
    "[",
    "]",
    "`",
    "'",
    "\"",
    "#",
    "*",
    "=",
    "+",
    "~",
    "deploy",
    "Deploy",
    "DEPLOY",
    "tests",
    "testing",
    "queries",
    "the",
    "The",
    "don't",
    "HTTPServer",
    "camelCase",
    "snake_case",
    "kebab-case",
    "src/auth/token.ts",
    "v1.2.3",
    "E0502",
    "TS2345",
    "base64Encode",
    "I2C",
    "2FA",
    "migration",
    "releases",
    "embedded",
    "running",
    "é",
    "É",
    "ß",
    "İ",
    "Σ",
    "ΟΔΟΣ",
    "ünïcode",
    "日本語",
    "٣",
    "½",
    "\u{301}",
    "\u{200b}",
    "🙂",
    "\u{feff}",
    "ǅ",
    "ﬁ",
    "Ⅻ",
    "ａｂ",
];

fn random_text(rng: &mut XorShift) -> String {
    let n = (rng.next() % 24) as usize;
    let mut s = String::new();
    for _ in 0..n {
        let piece = PIECES[(rng.next() % PIECES.len() as u64) as usize];
        s.push_str(piece);
    }
    s
}

#[test]
fn random_strings_tokenise_as_before() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut terms = 0;
    for _ in 0..40_000 {
        terms += assert_same(&random_text(&mut rng));
    }
    assert!(terms > 40_000, "{terms} terms");
    // Random code points too (any char, valid UTF-8 by construction).
    for _ in 0..5_000 {
        let s: String = (0..(rng.next() % 12))
            .filter_map(|_| char::from_u32((rng.next() % 0x3_0000) as u32))
            .collect();
        assert_same(&s);
    }
}
