//! MEMORY.md index lines: `- [Title](file.md) — hook`. Parsing is liberal (other bullets and
//! dashes, extra spaces, brackets in titles, CRLF); formatting is strict (the canonical form with
//! an em dash, one line). Edits keep every other byte of the index as it was.

use crate::jsstr::js_trim;
use crate::paths::normalize;
use serde::Serialize;

/// The separator written between link and hook: space, U+2014 em dash, space.
pub const HOOK_SEPARATOR: &str = " \u{2014} ";

/// One index line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexEntry {
    /// Link text.
    pub title: String,
    /// Link target, relative to the index.
    pub file: String,
    /// The one-line hook after the dash (may be empty).
    pub hook: String,
}

/// Characters accepted between the link and the hook.
const SEPARATORS: [&str; 5] = ["\u{2014}", "\u{2013}", "--", "-", ":"];

/// Parse one line; `None` if it is not an entry.
///
/// Accepted: leading indentation; a `-`, `*` or `+` bullet; `[title](file)` where the title may
/// hold brackets (escaped as `\]` or not) and the target may be written `<file with spaces>`;
/// then nothing, or a hook after an em dash, en dash, `-`, `--`, `:` or plain whitespace.
/// Surrounding whitespace, including a trailing `\r`, is ignored. Time is linear in the line's
/// length, whatever it holds (one pass finds the target for every candidate `](`).
///
/// ```
/// use memdir::{parse_index_entry, IndexEntry};
/// let entry = parse_index_entry("- [User role](user_role.md) — senior Go dev").unwrap();
/// assert_eq!(entry.title, "User role");
/// assert_eq!(entry.file, "user_role.md");
/// assert_eq!(entry.hook, "senior Go dev");
/// assert_eq!(parse_index_entry("* [A [b]](a.md) - x\r").unwrap().title, "A [b]");
/// assert_eq!(parse_index_entry("# Memory"), None);
/// ```
pub fn parse_index_entry(line: &str) -> Option<IndexEntry> {
    let rest = js_trim(line);
    let rest = rest
        .strip_prefix(['-', '*', '+'])?
        .trim_start_matches(|c: char| c.is_whitespace());
    let body = rest.strip_prefix('[')?;
    let mut targets = Targets::new(body);
    for (close, _) in body.match_indices("](") {
        if is_escaped(body, close) {
            continue;
        }
        let Some(title) = body.get(..close) else {
            continue;
        };
        if let Some((file, tail)) = targets.split_at(close + 2) {
            return Some(IndexEntry {
                title: unescape_title(title).trim().to_owned(),
                file: file.to_owned(),
                hook: hook_from_tail(tail),
            });
        }
    }
    None
}

/// Whether the byte at `at` is preceded by an odd number of backslashes.
fn is_escaped(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or("");
    let backslashes = before.len() - before.trim_end_matches('\\').len();
    backslashes % 2 == 1
}

/// The first position at or after a start where a predicate holds, remembered: asked again from
/// a later start that is not past the answer, it answers without looking. Asked from starts
/// that never decrease, the searches cover disjoint stretches of the text, so all of them
/// together read it once.
#[derive(Default)]
struct Ahead {
    /// The start of the last search and its answer (`None`: nothing from there to the end).
    last: Option<(usize, Option<usize>)>,
}

impl Ahead {
    /// The first char boundary `p >= from` of `text` where `wanted(text, p, char at p)` holds.
    fn find(
        &mut self,
        text: &str,
        from: usize,
        wanted: impl Fn(&str, usize, char) -> bool,
    ) -> Option<usize> {
        if let Some((start, answer)) = self.last {
            if start <= from && answer.is_none_or(|at| from <= at) {
                return answer;
            }
        }
        let answer = text.get(from..).and_then(|rest| {
            rest.char_indices()
                .map(|(i, c)| (from + i, c))
                .find(|&(at, c)| wanted(text, at, c))
                .map(|(at, _)| at)
        });
        self.last = Some((from, answer));
        answer
    }
}

/// Finds the link target after each candidate `](` of one line, in one pass over the line
/// however many candidates there are (a line of many `](` or `)` must not cost their product).
struct Targets<'a> {
    body: &'a str,
    /// A `)` that a tail able to end an entry follows.
    plain_close: Ahead,
    /// A `>)` that a tail able to end an entry follows.
    bracket_close: Ahead,
    whitespace: Ahead,
    non_whitespace: Ahead,
}

impl<'a> Targets<'a> {
    fn new(body: &'a str) -> Self {
        Targets {
            body,
            plain_close: Ahead::default(),
            bracket_close: Ahead::default(),
            whitespace: Ahead::default(),
            non_whitespace: Ahead::default(),
        }
    }

    /// The target starting at byte `start` of the body (just after a `](`) and the tail after
    /// its closing parenthesis: `<file>)` up to the first `>)` that a non-blank file precedes
    /// and an entry-ending tail follows, else `file)` up to the first such `)` before any
    /// whitespace, the file not empty. Calls must come with increasing `start`.
    fn split_at(&mut self, start: usize) -> Option<(&'a str, &'a str)> {
        let body = self.body;
        let after = body.get(start..)?;
        if after.starts_with('<') {
            if let Some(split) = self.split_bracketed(start + 1) {
                return Some(split);
            }
        }
        // The file may not be empty: a `)` right at the start does not close it.
        let from = start + usize::from(after.starts_with(')'));
        let close = self.plain_close.find(body, from, |text, at, c| {
            c == ')' && text.get(at + 1..).is_some_and(tail_ends_entry)
        })?;
        let blank = self
            .whitespace
            .find(body, start, |_, _, c| c.is_whitespace());
        if blank.is_some_and(|blank| blank < close) {
            return None;
        }
        Some((body.get(start..close)?.trim(), body.get(close + 1..)?))
    }

    /// `file>)tail` from byte `inner` of the body: the first `>)` after the first non-blank
    /// character whose tail can end an entry.
    fn split_bracketed(&mut self, inner: usize) -> Option<(&'a str, &'a str)> {
        let body = self.body;
        let first = self
            .non_whitespace
            .find(body, inner, |_, _, c| !c.is_whitespace())?;
        let past_first = first + body.get(first..)?.chars().next()?.len_utf8();
        let close = self.bracket_close.find(body, past_first, |text, at, _| {
            text.get(at..).is_some_and(|rest| rest.starts_with(">)"))
                && text.get(at + 2..).is_some_and(tail_ends_entry)
        })?;
        Some((body.get(inner..close)?, body.get(close + 2..)?))
    }
}

/// What may follow the link: nothing, whitespace, or a separator.
fn tail_ends_entry(tail: &str) -> bool {
    tail.is_empty()
        || tail.starts_with(char::is_whitespace)
        || SEPARATORS.iter().any(|sep| tail.starts_with(sep))
}

fn hook_from_tail(tail: &str) -> String {
    let tail = js_trim(tail);
    let tail = SEPARATORS
        .iter()
        .find_map(|sep| tail.strip_prefix(sep))
        .unwrap_or(tail);
    js_trim(tail).to_owned()
}

/// `\[`, `\]` and `\\` stand for the character; any other backslash is literal.
fn unescape_title(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if matches!(next, '[' | ']' | '\\') {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// Brackets get a backslash; a backslash gets one when it would otherwise read as an escape
/// (before a bracket, a backslash, or at the end where `](` follows).
fn escape_title(title: &str) -> String {
    let mut out = String::with_capacity(title.len() + 2);
    let mut chars = title.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' | ']' => out.push('\\'),
            '\\' if matches!(chars.peek(), None | Some('[' | ']' | '\\')) => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Line breaks (`\r\n`, `\n`, `\r`, U+2028, U+2029) become single spaces; ends trimmed.
fn one_line(text: &str) -> String {
    js_trim(&line_breaks_to_spaces(text)).to_owned()
}

/// Line breaks become spaces; nothing is trimmed (a link target keeps its exact spelling).
fn line_breaks_to_spaces(text: &str) -> String {
    text.replace("\r\n", " ")
        .replace(['\n', '\r', '\u{2028}', '\u{2029}'], " ")
}

/// Format one entry canonically: `- [Title](file.md) — hook`, or `- [Title](file.md)` when the
/// hook is empty. Title, file and hook are kept on one line (line breaks become spaces); brackets
/// in the title are escaped; a target with spaces or parentheses is written `<…>` (such a target
/// that also contains `>)` cannot be represented and will not parse back as written).
///
/// ```
/// use memdir::{format_index_entry, IndexEntry};
/// let entry = IndexEntry { title: "Role".into(), file: "role.md".into(), hook: "Go dev".into() };
/// assert_eq!(format_index_entry(&entry), "- [Role](role.md) — Go dev");
/// let bare = IndexEntry { hook: String::new(), ..entry };
/// assert_eq!(format_index_entry(&bare), "- [Role](role.md)");
/// ```
pub fn format_index_entry(entry: &IndexEntry) -> String {
    let title = escape_title(&one_line(&entry.title));
    let file = line_breaks_to_spaces(&entry.file);
    let hook = one_line(&entry.hook);
    let needs_brackets =
        file.starts_with('<') || file.contains(|c: char| c.is_whitespace() || c == '(' || c == ')');
    let mut line = format!("- [{title}](");
    if needs_brackets {
        line.push('<');
        line.push_str(&file);
        line.push('>');
    } else {
        line.push_str(&file);
    }
    line.push(')');
    if !hook.is_empty() {
        line.push_str(HOOK_SEPARATOR);
        line.push_str(&hook);
    }
    line
}

/// Every entry of an index with its 0-based line number (lines split at `\n`).
///
/// ```
/// let entries = memdir::index_entry::index_entries("# Memory\n- [A](a.md) — x\n");
/// assert_eq!(entries.len(), 1);
/// assert_eq!(entries[0].0, 1);
/// ```
pub fn index_entries(index: &str) -> Vec<(usize, IndexEntry)> {
    index
        .split('\n')
        .enumerate()
        .filter_map(|(n, line)| parse_index_entry(line).map(|entry| (n, entry)))
        .collect()
}

/// Whether two link targets name the same file (`./a.md` and `a.md` do).
fn same_file(a: &str, b: &str) -> bool {
    a == b || normalize(a) == normalize(b)
}

/// A line's text and its terminator (`\r\n`, `\n` or nothing).
fn split_terminator(segment: &str) -> (&str, &str) {
    let content = segment.strip_suffix('\n').unwrap_or(segment);
    let content = content.strip_suffix('\r').unwrap_or(content);
    let terminator = segment.get(content.len()..).unwrap_or("");
    (content, terminator)
}

fn points_at(content: &str, file: &str) -> bool {
    parse_index_entry(content).is_some_and(|entry| same_file(&entry.file, file))
}

/// The index with the entry for `entry.file` replaced in place (keeping that line's `\r\n` or
/// `\n`), or appended if absent. Later lines pointing at the same file are dropped, so the index
/// keeps one entry per file; every other line stays byte-for-byte. An appended entry is
/// separated by a newline from what precedes it and ends with one (`\r\n` if the index uses it).
///
/// ```
/// use memdir::{index_entry::upsert_index_entry, IndexEntry};
/// let entry = IndexEntry { title: "B".into(), file: "b.md".into(), hook: "new".into() };
/// assert_eq!(upsert_index_entry("", &entry), "- [B](b.md) — new\n");
/// assert_eq!(
///     upsert_index_entry("- [B](b.md) — old\n- [C](c.md)", &entry),
///     "- [B](b.md) — new\n- [C](c.md)"
/// );
/// assert_eq!(upsert_index_entry("# M", &entry), "# M\n- [B](b.md) — new\n");
/// ```
pub fn upsert_index_entry(index: &str, entry: &IndexEntry) -> String {
    upsert_index_entry_telling(index, entry).0
}

/// [`upsert_index_entry`], also telling whether the entry was added at the end: the new text is
/// then `index` itself followed by the added line (every byte of `index` kept in place), which
/// a writer may append instead of rewriting the file.
///
/// ```
/// use memdir::{index_entry::upsert_index_entry_telling, IndexEntry};
/// let entry = IndexEntry { title: "B".into(), file: "b.md".into(), hook: "new".into() };
/// assert_eq!(upsert_index_entry_telling("# M\n", &entry), ("# M\n- [B](b.md) — new\n".into(), true));
/// assert_eq!(upsert_index_entry_telling("- [B](b.md)\n", &entry).1, false);
/// ```
pub fn upsert_index_entry_telling(index: &str, entry: &IndexEntry) -> (String, bool) {
    let line = format_index_entry(entry);
    let mut out = String::with_capacity(index.len() + line.len() + 2);
    let mut replaced = false;
    let mut copied = 0;
    for (start, end) in lines_pointing_at(index, &entry.file) {
        out.push_str(index.get(copied..start).unwrap_or(""));
        if !replaced {
            let segment = index.get(start..end).unwrap_or("");
            out.push_str(&line);
            out.push_str(split_terminator(segment).1);
            replaced = true;
        }
        copied = end;
    }
    out.push_str(index.get(copied..).unwrap_or(""));
    if replaced {
        return (out, false);
    }
    // Most indexes hold no `\r`: a byte search says so faster than a search for "\r\n".
    let crlf = index.contains('\r') && index.contains("\r\n");
    let eol = if crlf { "\r\n" } else { "\n" };
    if !index.is_empty() && !index.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(&line);
    out.push_str(eol);
    (out, true)
}

/// The byte ranges (each line with its terminator) of the lines of `index` that point at
/// `file`, in order. Only lines holding `file`'s last path component (once normalized) are
/// parsed: the target of a line is a slice of it, and a normalized path's components are
/// components of the path, so a line without that text cannot point at `file`. Every other
/// line is skipped by a substring search, which keeps an index update linear in the index's
/// size with a small constant, whatever the number of entries.
fn lines_pointing_at(index: &str, file: &str) -> Vec<(usize, usize)> {
    let normalized = normalize(file);
    let key = normalized
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let mut out = Vec::new();
    if key.is_empty() || key == "." || key == ".." {
        let mut start = 0;
        for segment in index.split_inclusive('\n') {
            let end = start + segment.len();
            if points_at(split_terminator(segment).0, file) {
                out.push((start, end));
            }
            start = end;
        }
        return out;
    }
    let mut done = 0; // end of the last line looked at
    while let Some(at) = crate::find::find_from(index, key, done) {
        let start = index
            .get(..at)
            .and_then(|b| b.rfind('\n'))
            .map_or(0, |i| i + 1);
        let end = index
            .get(at..)
            .and_then(|rest| rest.find('\n'))
            .map_or(index.len(), |i| at + i + 1);
        done = end;
        let segment = index.get(start..end).unwrap_or("");
        if points_at(split_terminator(segment).0, file) {
            out.push((start, end));
        }
    }
    out
}

/// The index without any entry pointing at `file` (each such line and its terminator removed);
/// every other line stays byte-for-byte.
///
/// ```
/// use memdir::index_entry::remove_index_entry;
/// assert_eq!(remove_index_entry("# M\n- [A](a.md) — x\n- [B](b.md)\n", "a.md"), "# M\n- [B](b.md)\n");
/// ```
pub fn remove_index_entry(index: &str, file: &str) -> String {
    let mut out = String::with_capacity(index.len());
    let mut copied = 0;
    for (start, end) in lines_pointing_at(index, file) {
        out.push_str(index.get(copied..start).unwrap_or(""));
        copied = end;
    }
    out.push_str(index.get(copied..).unwrap_or(""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The updates as first written, parsing every line: the searching ones must agree.
    fn upsert_parsing_every_line(index: &str, entry: &IndexEntry) -> String {
        let line = format_index_entry(entry);
        let mut out = String::new();
        let mut replaced = false;
        for segment in index.split_inclusive('\n') {
            let (content, terminator) = split_terminator(segment);
            if points_at(content, &entry.file) {
                if !replaced {
                    out.push_str(&line);
                    out.push_str(terminator);
                    replaced = true;
                }
            } else {
                out.push_str(segment);
            }
        }
        if replaced {
            return out;
        }
        let eol = if index.contains("\r\n") { "\r\n" } else { "\n" };
        if !index.is_empty() && !index.ends_with('\n') {
            out.push_str(eol);
        }
        out + &line + eol
    }

    fn remove_parsing_every_line(index: &str, file: &str) -> String {
        index
            .split_inclusive('\n')
            .filter(|segment| !points_at(split_terminator(segment).0, file))
            .collect()
    }

    #[test]
    fn updates_by_search_agree_with_parsing_every_line() {
        let files = [
            "b.md",
            "./b.md",
            "x/../b.md",
            "team/b.md",
            "team//b.md",
            "a b.md",
            "B.md",
            "b.md/",
            "..",
            ".",
            "",
            "c.md",
            "sub/./b.md",
            "../b.md",
            "v1.2.md",
            "éé.md",
        ];
        let pieces = [
            "- [T](",
            "* [T [x]](",
            "+ [T\\]](",
            "](",
            ")",
            " — hook",
            "\n",
            "\r\n",
            "<",
            ">",
            " ",
            "# M",
            "b.md",
            "./",
            "../",
            "x/",
            "team/",
            "c.md",
            "\\",
            "- [b.md](b.md)\n",
            "v1.2.md",
            "1.2.md",
            ".",
            "\r",
            "é",
            "éé.md",
            "é.md",
        ];
        let mut rng = crate::test_rng::XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let n = (rng.next() % 14) as usize;
            let index: String = (0..n)
                .map(|_| {
                    pieces
                        .get((rng.next() % pieces.len() as u64) as usize)
                        .copied()
                        .unwrap_or("")
                })
                .collect();
            let file = files
                .get((rng.next() % files.len() as u64) as usize)
                .copied()
                .unwrap_or("b.md");
            let entry = IndexEntry {
                title: "N".into(),
                file: file.into(),
                hook: "h".into(),
            };
            let (upserted, appended) = upsert_index_entry_telling(&index, &entry);
            assert_eq!(
                upserted,
                upsert_parsing_every_line(&index, &entry),
                "{index:?} {file:?}"
            );
            // Told appended exactly when no line pointed at the file, so the index is kept
            // whole at the start of the new text.
            let removed = remove_index_entry(&index, file);
            assert_eq!(appended, removed == index, "{index:?} {file:?}");
            assert!(
                !appended || upserted.starts_with(&index),
                "{index:?} {file:?}"
            );
            assert_eq!(
                removed,
                remove_parsing_every_line(&index, file),
                "{index:?} {file:?}"
            );
        }
    }

    #[test]
    fn escapes_round_trip() {
        for title in ["a]b", "[x]", "C:\\dir", "ends\\", "a\\]", "\\\\", "plain"] {
            let escaped = escape_title(title);
            assert_eq!(unescape_title(&escaped), title, "{title:?} → {escaped:?}");
        }
        assert_eq!(escape_title("C:\\dir"), "C:\\dir");
        assert_eq!(escape_title("a]"), "a\\]");
    }

    /// The parser as first written, one search per candidate (quadratic on hostile lines): the
    /// one-pass [`Targets`] must give the same answer on every line.
    fn parse_by_rescanning(line: &str) -> Option<IndexEntry> {
        fn split_target(after: &str) -> Option<(&str, &str)> {
            if let Some(inner) = after.strip_prefix('<') {
                let bracketed = inner
                    .match_indices(">)")
                    .map(|(at, _)| (&inner[..at], &inner[at + 2..]))
                    .find(|(file, tail)| !file.trim().is_empty() && tail_ends_entry(tail));
                if bracketed.is_some() {
                    return bracketed;
                }
            }
            after
                .match_indices(')')
                .map(|(at, _)| (&after[..at], &after[at + 1..]))
                .find(|(file, tail)| {
                    !file.trim().is_empty()
                        && !file.contains(char::is_whitespace)
                        && tail_ends_entry(tail)
                })
                .map(|(file, tail)| (file.trim(), tail))
        }
        let rest = js_trim(line).strip_prefix(['-', '*', '+'])?;
        let body = rest
            .trim_start_matches(char::is_whitespace)
            .strip_prefix('[')?;
        body.match_indices("](")
            .filter(|(close, _)| !is_escaped(body, *close))
            .find_map(|(close, _)| {
                let (file, tail) = split_target(&body[close + 2..])?;
                Some(IndexEntry {
                    title: unescape_title(&body[..close]).trim().to_owned(),
                    file: file.to_owned(),
                    hook: hook_from_tail(tail),
                })
            })
    }

    #[test]
    fn one_pass_agrees_with_rescanning() {
        const PIECES: &[&str] = &[
            "- [", "[", "]", "](", "](", "](a", "(", ")", ")", "a)", "<", ">", ">)", " -", "\\",
            " ", "\t", "\u{2003}", "a", "b.md", "\u{2014}", "\u{2013}", "-", "--", ":", "é", "x y",
            "\r",
        ];
        let mut rng = crate::test_rng::XorShift(0x5DEE_CE66_D1CE_B00C);
        let mut entries = 0;
        for _ in 0..60_000 {
            let mut line = String::from(if rng.next() % 4 == 0 { "* " } else { "- [" });
            for _ in 0..rng.next() % 14 {
                line.push_str(PIECES[(rng.next() % PIECES.len() as u64) as usize]);
            }
            let expected = parse_by_rescanning(&line);
            entries += usize::from(expected.is_some());
            assert_eq!(parse_index_entry(&line), expected, "{line:?}");
        }
        assert!(entries > 3_000, "only {entries} lines were entries");
    }

    #[test]
    fn escaped_bracket_detection() {
        assert!(is_escaped("a\\]", 2));
        assert!(!is_escaped("a\\\\]", 3));
        assert!(!is_escaped("]", 0));
    }
}
