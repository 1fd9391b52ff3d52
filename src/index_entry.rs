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
/// Surrounding whitespace, including a trailing `\r`, is ignored.
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
    for (close, _) in body.match_indices("](") {
        if is_escaped(body, close) {
            continue;
        }
        let (Some(title), Some(after)) = (body.get(..close), body.get(close + 2..)) else {
            continue;
        };
        if let Some((file, tail)) = split_target(after) {
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

/// Split `file)tail` (or `<file>)tail`) at the closing parenthesis whose tail can end an entry.
fn split_target(after: &str) -> Option<(&str, &str)> {
    if let Some(bracketed) = after.strip_prefix('<').and_then(split_bracketed_target) {
        return Some(bracketed);
    }
    after
        .match_indices(')')
        .filter_map(|(at, _)| Some((after.get(..at)?, after.get(at + 1..)?)))
        .find(|(file, tail)| {
            !file.trim().is_empty() && !file.contains(char::is_whitespace) && tail_ends_entry(tail)
        })
        .map(|(file, tail)| (file.trim(), tail))
}

/// Split `file>)tail` at the first `>)` whose tail can end an entry.
fn split_bracketed_target(inner: &str) -> Option<(&str, &str)> {
    inner
        .match_indices(">)")
        .filter_map(|(at, _)| Some((inner.get(..at)?, inner.get(at + 2..)?)))
        .find(|(file, tail)| !file.trim().is_empty() && tail_ends_entry(tail))
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
    let line = format_index_entry(entry);
    let mut out = String::with_capacity(index.len() + line.len() + 2);
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
    out.push_str(&line);
    out.push_str(eol);
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
    index
        .split_inclusive('\n')
        .filter(|segment| !points_at(split_terminator(segment).0, file))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        for title in ["a]b", "[x]", "C:\\dir", "ends\\", "a\\]", "\\\\", "plain"] {
            let escaped = escape_title(title);
            assert_eq!(unescape_title(&escaped), title, "{title:?} → {escaped:?}");
        }
        assert_eq!(escape_title("C:\\dir"), "C:\\dir");
        assert_eq!(escape_title("a]"), "a\\]");
    }

    #[test]
    fn escaped_bracket_detection() {
        assert!(is_escaped("a\\]", 2));
        assert!(!is_escaped("a\\\\]", 3));
        assert!(!is_escaped("]", 0));
    }
}
