//! MEMORY.md caps and preparing it for the model.
//!
//! Lengths are JS lengths: lines come from `split("\n")` of the JS-trimmed text and sizes are
//! UTF-16 code units. One deliberate difference from the reference: a hard cut never splits a
//! surrogate pair (it backs off one unit instead).

use crate::frontmatter::split_frontmatter;
use crate::jsstr::{
    count_newlines, js_trim, nth_newline, units_and_newlines, units_newlines_and_index, utf16_len,
    utf16_to_byte_index,
};
use crate::size::format_file_size;
use crate::types::{MAX_ENTRYPOINT_LINES, MAX_ENTRYPOINT_UNITS};
use serde::Serialize;
use std::borrow::Cow;
use std::ops::Range;

/// The advice sentence that closes the truncation warning.
pub const TRUNCATION_ADVICE: &str = "Keep each index entry to a single line of about 200 \
                                      characters or fewer, and move the details into topic files.";

/// Caps for [`truncate_entrypoint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TruncateOptions {
    /// Line cap (default 200).
    pub max_lines: usize,
    /// Size cap in UTF-16 units (default 25,000).
    pub max_units: usize,
}

impl Default for TruncateOptions {
    fn default() -> Self {
        TruncateOptions {
            max_lines: MAX_ENTRYPOINT_LINES,
            max_units: MAX_ENTRYPOINT_UNITS,
        }
    }
}

/// The index as loaded, with what was measured.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntrypointTruncation {
    /// The text the model gets (with the warning appended when cut).
    pub content: String,
    /// Lines of the trimmed text.
    pub line_count: usize,
    /// UTF-16 units of the trimmed text (named as the reference names it).
    pub byte_count: usize,
    /// More lines than the cap.
    pub was_line_truncated: bool,
    /// More units than the cap.
    pub was_byte_truncated: bool,
}

/// What the caps keep of an index, before any warning is added.
struct Measured<'a> {
    trimmed: &'a str,
    /// The prefix of `trimmed` that is loaded.
    kept: &'a str,
    line_count: usize,
    unit_count: usize,
    was_line_truncated: bool,
    was_unit_truncated: bool,
}

/// One pass over the trimmed text counts its units and lines; only a cut text is read again,
/// and only as far as what is kept.
fn measure<'a>(raw: &'a str, options: &TruncateOptions) -> Measured<'a> {
    let trimmed = js_trim(raw);
    let (unit_count, newlines, hard_cut) = units_newlines_and_index(trimmed, options.max_units);
    measure_counted(trimmed, newlines + 1, unit_count, Some(hard_cut), options)
}

/// The caps applied to a prefix of the trimmed text whose whole line and unit counts are
/// known; the prefix must hold at least `max_units + 1` units or all of the text.
/// `hard_cut`: the byte index of UTF-16 index `max_units` in `prefix` when already known (it is
/// the same in the kept lines whenever they are cut to units).
fn measure_counted<'a>(
    prefix: &'a str,
    line_count: usize,
    unit_count: usize,
    hard_cut: Option<usize>,
    options: &TruncateOptions,
) -> Measured<'a> {
    let was_line_truncated = line_count > options.max_lines;
    let was_unit_truncated = unit_count > options.max_units;
    let mut kept = prefix;
    if was_line_truncated {
        kept = first_lines(prefix, options.max_lines);
    }
    // A prefix shorter than the text holds more than `max_units` units, so it is cut either way.
    let kept_units = if was_line_truncated {
        utf16_len(kept)
    } else {
        unit_count
    };
    if kept_units > options.max_units {
        kept = cut_to_units(kept, options.max_units, hard_cut);
    }
    Measured {
        trimmed: prefix,
        kept,
        line_count,
        unit_count,
        was_line_truncated,
        was_unit_truncated,
    }
}

/// `text.split("\n").slice(0, count).join("\n")`, as a prefix of `text`.
fn first_lines(text: &str, count: usize) -> &str {
    if count == 0 {
        return "";
    }
    let end = nth_newline(text.as_bytes(), count).unwrap_or(text.len());
    text.get(..end).unwrap_or(text)
}

/// Cut at the last newline at or before UTF-16 index `max_units` (dropping it) when that newline
/// is not the first character; otherwise hard-cut at `max_units`, backing off one unit rather
/// than splitting a surrogate pair.
fn cut_to_units(text: &str, max_units: usize, hard_cut: Option<usize>) -> &str {
    let hard_cut = hard_cut
        .unwrap_or_else(|| utf16_to_byte_index(text, max_units))
        .min(text.len());
    // The character starting at `hard_cut` is at UTF-16 index `max_units` exactly when it is a
    // newline (a floored index lands on a 4-byte character), so searching through it is right.
    let search_end = (hard_cut + 1).min(text.len());
    let newline = text
        .as_bytes()
        .get(..search_end)
        .and_then(|bytes| bytes.iter().rposition(|&b| b == b'\n'));
    let end = match newline {
        Some(cut_at) if cut_at > 0 => cut_at,
        _ => hard_cut,
    };
    text.get(..end).unwrap_or("")
}

/// Apply the caps exactly as the reference does: trim, count, keep the first `max_lines` lines,
/// then cut to `max_units` UTF-16 units at a line break when possible, and append a warning that
/// names what was exceeded.
///
/// ```
/// use memdir::{truncate_entrypoint, TruncateOptions};
/// let index = "- [A](a.md) — hook\n".repeat(250);
/// let loaded = truncate_entrypoint(&index, &TruncateOptions::default());
/// assert_eq!(loaded.line_count, 250);
/// assert!(loaded.was_line_truncated && !loaded.was_byte_truncated);
/// assert!(loaded.content.contains("> WARNING: MEMORY.md is 250 lines (limit: 200)."));
/// ```
pub fn truncate_entrypoint(raw: &str, options: &TruncateOptions) -> EntrypointTruncation {
    truncation_of(measure(raw, options), options)
}

/// [`truncate_entrypoint`] for a caller that has already trimmed the index (JS `trim()`) and
/// counted its lines (`split("\n").length`) and UTF-16 units: it hands over only a prefix of
/// the trimmed text, at least `max_units + 1` units long or the whole text, since nothing past
/// it can be kept. The JS entry uses this so a 1 MB index never crosses into wasm.
///
/// ```
/// use memdir::entrypoint::truncate_counted;
/// use memdir::{truncate_entrypoint, TruncateOptions};
/// let options = TruncateOptions { max_lines: 200, max_units: 30 };
/// let index = "- [A](a.md) — hook\n".repeat(10);
/// let trimmed = index.trim();
/// let prefix: String = trimmed.chars().take(31).collect();
/// let counted = truncate_counted(&prefix, 10, trimmed.encode_utf16().count(), &options);
/// assert_eq!(counted, truncate_entrypoint(&index, &options));
/// ```
pub fn truncate_counted(
    prefix: &str,
    line_count: usize,
    unit_count: usize,
    options: &TruncateOptions,
) -> EntrypointTruncation {
    let measured = measure_counted(prefix, line_count.max(1), unit_count, None, options);
    truncation_of(measured, options)
}

/// [`truncate_counted`] with the loaded text described rather than copied: `content` is the
/// first `keep_units` UTF-16 units of the trimmed text followed by `suffix`. The JS entry uses
/// this so the index, which JS already holds, does not come back through the boundary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntrypointCut {
    /// UTF-16 units of the trimmed text that are loaded (all of them when nothing is cut).
    pub keep_units: usize,
    /// What follows them in `content`: the warning when cut, else empty.
    pub suffix: String,
    /// Lines of the trimmed text.
    pub line_count: usize,
    /// UTF-16 units of the trimmed text.
    pub byte_count: usize,
    /// More than `max_lines` lines.
    pub was_line_truncated: bool,
    /// More than `max_units` units.
    pub was_byte_truncated: bool,
}

/// [`truncate_counted`] as an [`EntrypointCut`].
///
/// ```
/// use memdir::entrypoint::{truncate_counted, truncate_counted_cut};
/// use memdir::TruncateOptions;
/// let options = TruncateOptions { max_lines: 3, max_units: 1000 };
/// let text = "- [A](a.md)\n".repeat(5);
/// let trimmed = text.trim();
/// let cut = truncate_counted_cut(trimmed, 5, trimmed.len(), &options);
/// let whole = truncate_counted(trimmed, 5, trimmed.len(), &options);
/// assert_eq!(format!("{}{}", &trimmed[..cut.keep_units], cut.suffix), whole.content);
/// ```
pub fn truncate_counted_cut(
    prefix: &str,
    line_count: usize,
    unit_count: usize,
    options: &TruncateOptions,
) -> EntrypointCut {
    let measured = measure_counted(prefix, line_count.max(1), unit_count, None, options);
    let cut = measured.was_line_truncated || measured.was_unit_truncated;
    EntrypointCut {
        keep_units: if cut {
            utf16_len(measured.kept)
        } else {
            measured.unit_count
        },
        suffix: if cut {
            warning_of(&measured, options)
        } else {
            String::new()
        },
        line_count: measured.line_count,
        byte_count: measured.unit_count,
        was_line_truncated: measured.was_line_truncated,
        was_byte_truncated: measured.was_unit_truncated,
    }
}

/// Whether an index of `line_count` lines and `unit_count` UTF-16 units (trimmed) is loaded
/// whole: then [`truncate_entrypoint`]'s content is the trimmed text itself, and neither
/// `was_line_truncated` nor `was_byte_truncated` is set.
///
/// ```
/// use memdir::entrypoint::within_caps;
/// use memdir::TruncateOptions;
/// assert!(within_caps(200, 25_000, &TruncateOptions::default()));
/// assert!(!within_caps(201, 10, &TruncateOptions::default()));
/// ```
pub fn within_caps(line_count: usize, unit_count: usize, options: &TruncateOptions) -> bool {
    line_count.max(1) <= options.max_lines && unit_count <= options.max_units
}

/// What a cut index ends with.
fn warning_of(measured: &Measured<'_>, options: &TruncateOptions) -> String {
    let reason = truncation_reason(measured, options);
    format!("\n\n> WARNING: MEMORY.md is {reason}. Only part of it was loaded. {TRUNCATION_ADVICE}")
}

fn truncation_of(measured: Measured<'_>, options: &TruncateOptions) -> EntrypointTruncation {
    let content = if !measured.was_line_truncated && !measured.was_unit_truncated {
        measured.trimmed.to_owned()
    } else {
        format!("{}{}", measured.kept, warning_of(&measured, options))
    };
    EntrypointTruncation {
        content,
        line_count: measured.line_count,
        byte_count: measured.unit_count,
        was_line_truncated: measured.was_line_truncated,
        was_byte_truncated: measured.was_unit_truncated,
    }
}

fn truncation_reason(measured: &Measured<'_>, options: &TruncateOptions) -> String {
    let lines = measured.line_count;
    let size = format_file_size(measured.unit_count as f64);
    match (measured.was_line_truncated, measured.was_unit_truncated) {
        (true, true) => format!("{lines} lines and {size}"),
        (true, false) => format!("{lines} lines (limit: {})", options.max_lines),
        _ => format!(
            "{size} (limit: {}) \u{2014} index entries are too long",
            format_file_size(options.max_units as f64)
        ),
    }
}

/// The 0-based lines of the trimmed index (as [`truncate_entrypoint`] counts them) that the caps
/// keep from the model, in whole or in part. The range is empty when nothing is cut; a line
/// that is only partly loaded (hard cut) counts as cut.
///
/// ```
/// use memdir::entrypoint::lines_cut;
/// use memdir::TruncateOptions;
/// let options = TruncateOptions { max_lines: 2, max_units: 1000 };
/// assert_eq!(lines_cut("a\nb\nc\nd", &options), 2..4);
/// assert!(lines_cut("a\nb", &options).is_empty());
/// ```
pub fn lines_cut(raw: &str, options: &TruncateOptions) -> Range<usize> {
    let measured = measure(raw, options);
    let total = measured.line_count;
    if measured.kept.len() == measured.trimmed.len() {
        return total..total;
    }
    let newlines_kept = count_newlines(measured.kept.as_bytes());
    // The kept prefix ends either just before a newline (its last line is whole) or mid-line.
    let ends_at_line_break = measured
        .trimmed
        .as_bytes()
        .get(measured.kept.len())
        .is_some_and(|&b| b == b'\n');
    let whole_lines = newlines_kept + usize::from(ends_at_line_break);
    whole_lines..total
}

/// MEMORY.md as the reference prepares it before the caps: frontmatter removed (a block
/// that opens with `---` at offset 0 and closes with a `---` line), then, only when the text
/// contains `<!--`, block-level HTML comments removed. An unclosed comment is left in place.
///
/// ```
/// use memdir::entrypoint::prepare_index_for_model;
/// let raw = "---\nname: index\n---\n<!-- maintained by hand -->\n- [A](a.md) — hook\n";
/// assert_eq!(prepare_index_for_model(raw), "- [A](a.md) — hook\n");
/// ```
pub fn prepare_index_for_model(raw: &str) -> String {
    index_for_model(raw).into_owned()
}

/// [`prepare_index_for_model`], borrowed from `raw` when no comment was stripped.
pub(crate) fn index_for_model(raw: &str) -> Cow<'_, str> {
    let body = split_frontmatter(raw).map_or(raw, |split| split.body);
    strip_block_html_comments(body)
}

/// [`prepare_index_for_model`] then [`truncate_entrypoint`]: the index exactly as the model
/// receives it.
///
/// ```
/// use memdir::entrypoint::load_index_for_model;
/// use memdir::TruncateOptions;
/// let loaded = load_index_for_model("<!-- note -->\n- [A](a.md)\n", &TruncateOptions::default());
/// assert_eq!(loaded.content, "- [A](a.md)");
/// ```
pub fn load_index_for_model(raw: &str, options: &TruncateOptions) -> EntrypointTruncation {
    truncate_entrypoint(&index_for_model(raw), options)
}

/// The counts of [`load_index_for_model`] without the loaded text: what a write measures
/// against the caps. Nothing is copied (a write measures its whole new index every time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoadedIndexSize {
    /// Lines of the trimmed text the model would get (before any cut).
    pub line_count: usize,
    /// Its UTF-16 units.
    pub unit_count: usize,
    /// More lines than the cap.
    pub was_line_truncated: bool,
    /// More units than the cap.
    pub was_unit_truncated: bool,
}

/// [`LoadedIndexSize`] of `raw`: the same counts and flags as [`load_index_for_model`].
pub(crate) fn loaded_index_size(raw: &str, options: &TruncateOptions) -> LoadedIndexSize {
    let body = split_frontmatter(raw).map_or(raw, |split| split.body);
    let prepared = strip_block_html_comments(body);
    let trimmed = js_trim(&prepared);
    let (unit_count, newlines) = units_and_newlines(trimmed.as_bytes());
    let line_count = newlines + 1;
    LoadedIndexSize {
        line_count,
        unit_count,
        was_line_truncated: line_count > options.max_lines,
        was_unit_truncated: unit_count > options.max_units,
    }
}

/// Remove HTML comments that stand as markdown blocks (a line starting, after at most three
/// spaces, with `<!--`, outside fenced code), as the reference's markdown-token pass does. Text
/// after `-->` on its closing line survives; a block that leaves only whitespace disappears with
/// the newlines that follow it. Like the reference's lexer, CR and CRLF become LF when anything
/// is stripped or examined.
pub fn strip_block_html_comments(text: &str) -> Cow<'_, str> {
    if !holds_comment_open(text) {
        return Cow::Borrowed(text);
    }
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(normalized.len());
    let mut fence: Option<Fence> = None;
    let mut pos = 0;
    while let Some(rest) = normalized.get(pos..).filter(|rest| !rest.is_empty()) {
        let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let line = rest.get(..line_len).unwrap_or(rest);
        if let Some(open) = fence {
            if open.is_closed_by(line) {
                fence = None;
            }
        } else if let Some(open) = Fence::opened_by(line) {
            fence = Some(open);
        } else if let Some(block_len) = comment_block_len(rest) {
            let block = rest.get(..block_len).unwrap_or(rest);
            let residue = remove_comment_spans(block);
            if !js_trim(&residue).is_empty() {
                out.push_str(&residue);
            }
            pos += block_len;
            continue;
        } else if strip_up_to_three_spaces(line).is_some_and(|body| body.starts_with("<!--")) {
            // An opening without a closing: the reference keeps everything from here verbatim.
            out.push_str(rest);
            break;
        }
        out.push_str(line);
        pos += line_len;
    }
    Cow::Owned(out)
}

/// Whether `text` holds `<!--` (a scan for its `!` eight bytes at a time: in wasm at opt-level
/// "z" several times faster than `str::contains`' two-way search).
fn holds_comment_open(text: &str) -> bool {
    crate::find::find_from(text, "<!--", 0).is_some()
}

/// When `text` starts with a comment block, its length: through the end of the line holding the
/// comment's close, plus the newlines right after it. `None` when it is no comment block or the
/// comment never closes.
fn comment_block_len(text: &str) -> Option<usize> {
    let indent = text.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let after_open = text.get(indent..)?.strip_prefix("<!--")?;
    let open_end = text.len() - after_open.len();
    let close_end = if after_open.starts_with('>') {
        open_end + 1
    } else if after_open.starts_with("->") {
        open_end + 2
    } else {
        open_end + after_open.find("-->")? + 3
    };
    let tail = text.get(close_end..)?;
    let line_end = close_end + tail.find('\n').unwrap_or(tail.len());
    let newlines = text
        .get(line_end..)?
        .bytes()
        .take_while(|&b| b == b'\n')
        .count();
    Some(line_end + newlines)
}

/// `text.replace(/<!--[\s\S]*?-->/g, "")`.
fn remove_comment_spans(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<!--") {
        let after_open = rest.get(open + 4..).unwrap_or("");
        let Some(close) = after_open.find("-->") else {
            break;
        };
        out.push_str(rest.get(..open).unwrap_or(""));
        rest = after_open.get(close + 3..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// An open fenced code block: its character and length.
#[derive(Clone, Copy)]
struct Fence {
    marker: u8,
    len: usize,
}

impl Fence {
    /// A line of at most three spaces, then three or more backticks (with no backtick after) or
    /// tildes.
    fn opened_by(line: &str) -> Option<Fence> {
        let body = strip_up_to_three_spaces(line)?;
        let marker = *body
            .as_bytes()
            .first()
            .filter(|&&b| b == b'`' || b == b'~')?;
        let len = body.bytes().take_while(|&b| b == marker).count();
        let info = body.get(len..).unwrap_or("");
        let valid = len >= 3 && !(marker == b'`' && info.contains('`'));
        valid.then_some(Fence { marker, len })
    }

    /// A line of at most three spaces, at least as many of the same fence characters, then only
    /// spaces.
    fn is_closed_by(self, line: &str) -> bool {
        let Some(body) = strip_up_to_three_spaces(line) else {
            return false;
        };
        let len = body.bytes().take_while(|&b| b == self.marker).count();
        let tail = body.get(len..).unwrap_or("");
        len >= self.len && tail.trim_end_matches('\n').bytes().all(|b| b == b' ')
    }
}

fn strip_up_to_three_spaces(line: &str) -> Option<&str> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    (indent <= 3).then(|| line.get(indent..)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_comment_open_agrees_with_contains() {
        let mut rng = crate::test_rng::XorShift(0xC0FF_EE00_1234_5678);
        const PIECES: [&str; 7] = ["<", "!", "-", "<!-", "a", "\u{E9}", "<!--"];
        for _ in 0..3000 {
            let text: String = (0..rng.next() % 24)
                .map(|_| PIECES[(rng.next() % 7) as usize])
                .collect();
            assert_eq!(holds_comment_open(&text), text.contains("<!--"), "{text:?}");
        }
    }

    #[test]
    fn the_loaded_size_counts_as_the_loaded_index() {
        let pieces = [
            "- [A](a.md) — hook",
            "\n",
            "\r\n",
            "---\n",
            "name: x\n",
            "<!-- note -->\n",
            "<!--\n",
            "-->",
            "```\n",
            "😀",
            "  ",
            "x".repeat(40).leak(),
        ];
        let options = TruncateOptions {
            max_lines: 6,
            max_units: 120,
        };
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..3000 {
            let text: String = (0..rng.next() % 40)
                .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
                .collect();
            let loaded = load_index_for_model(&text, &options);
            let size = loaded_index_size(&text, &options);
            assert_eq!(
                (
                    size.line_count,
                    size.unit_count,
                    size.was_line_truncated,
                    size.was_unit_truncated
                ),
                (
                    loaded.line_count,
                    loaded.byte_count,
                    loaded.was_line_truncated,
                    loaded.was_byte_truncated
                ),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_cut_describes_the_same_content() {
        let pieces = [
            "- [A](a.md) — hook",
            "\n",
            "é",
            "😀",
            " ",
            "x".repeat(40).leak(),
            "\n\n",
        ];
        let mut rng = crate::test_rng::XorShift(0x2545_f491_4f6c_dd1d);
        for _ in 0..3000 {
            let n = (rng.next() % 60) as usize;
            let text: String = (0..n)
                .map(|_| {
                    pieces
                        .get((rng.next() % pieces.len() as u64) as usize)
                        .copied()
                        .unwrap_or("")
                })
                .collect();
            let options = TruncateOptions {
                max_lines: (rng.next() % 12) as usize,
                max_units: (rng.next() % 300) as usize,
            };
            let trimmed = js_trim(&text);
            let units: Vec<u16> = trimmed.encode_utf16().collect();
            let lines = trimmed.matches('\n').count() + 1;
            let prefix = String::from_utf16_lossy(
                units
                    .get(..units.len().min(options.max_units + 1))
                    .unwrap_or(&[]),
            );
            // The prefix may split a surrogate pair only past `max_units`, never kept.
            let whole = truncate_entrypoint(&text, &options);
            let cut = truncate_counted_cut(&prefix, lines, units.len(), &options);
            assert_eq!(
                within_caps(lines, units.len(), &options),
                !whole.was_line_truncated && !whole.was_byte_truncated
            );
            let kept = String::from_utf16_lossy(units.get(..cut.keep_units).unwrap_or(&[]));
            assert_eq!(
                format!("{kept}{}", cut.suffix),
                whole.content,
                "{text:?} {options:?}"
            );
            assert_eq!(
                (
                    cut.line_count,
                    cut.byte_count,
                    cut.was_line_truncated,
                    cut.was_byte_truncated
                ),
                (
                    whole.line_count,
                    whole.byte_count,
                    whole.was_line_truncated,
                    whole.was_byte_truncated
                )
            );
        }
    }

    fn small(max_lines: usize, max_units: usize) -> TruncateOptions {
        TruncateOptions {
            max_lines,
            max_units,
        }
    }

    #[test]
    fn untouched_when_within_caps() {
        let t = truncate_entrypoint("\u{FEFF}\n- a\r\n- b\n\n", &TruncateOptions::default());
        assert_eq!(t.content, "- a\r\n- b");
        assert_eq!((t.line_count, t.byte_count), (2, 8));
        assert!(!t.was_line_truncated && !t.was_byte_truncated);
    }

    #[test]
    fn unit_cut_prefers_a_line_break() {
        let t = truncate_entrypoint("aaaa\nbbbb\ncccc", &small(10, 11));
        assert!(t.content.starts_with("aaaa\nbbbb\n\n> WARNING: MEMORY.md is 14 bytes (limit: 11 bytes) \u{2014} index entries are too long. Only part of it was loaded. "));
        // A newline exactly at index max_units counts.
        let t = truncate_entrypoint("aaaa\nbbbb\ncccc", &small(10, 9));
        assert!(t.content.starts_with("aaaa\nbbbb\n\n"));
        let t = truncate_entrypoint("aaaa\nbbbb\ncccc", &small(10, 8));
        assert!(t.content.starts_with("aaaa\n\n> WARNING"));
    }

    #[test]
    fn no_line_break_before_the_cap_forces_a_hard_cut() {
        let t = truncate_entrypoint("abcdef\nx", &small(10, 4));
        assert!(t.content.starts_with("abcd\n\n> WARNING"));
    }

    #[test]
    fn hard_cut_never_splits_a_surrogate_pair() {
        let t = truncate_entrypoint("ab😀cd", &small(10, 3));
        assert!(t.content.starts_with("ab\n\n> WARNING"), "{}", t.content);
        let t = truncate_entrypoint("ab😀cd", &small(10, 4));
        assert!(t.content.starts_with("ab😀\n\n> WARNING"));
    }

    #[test]
    fn line_cap_can_hide_the_unit_overflow() {
        let t = truncate_entrypoint("a\nb\nccccccccccccc", &small(2, 10));
        assert!(t.was_line_truncated && t.was_byte_truncated);
        assert!(t
            .content
            .starts_with("a\nb\n\n> WARNING: MEMORY.md is 3 lines and 17 bytes. Only part"));
    }

    #[test]
    fn zero_caps_do_not_panic() {
        let t = truncate_entrypoint("a\nb", &small(0, 0));
        assert!(t
            .content
            .starts_with("\n\n> WARNING: MEMORY.md is 2 lines and 3 bytes."));
        assert_eq!(lines_cut("a\nb", &small(0, 0)), 0..2);
    }

    #[test]
    fn lines_cut_reports_partial_lines() {
        assert_eq!(lines_cut("aaaa\nbbbb\ncccc", &small(10, 11)), 2..3);
        assert_eq!(lines_cut("aaaa\nbbbb\ncccc", &small(10, 9)), 2..3);
        assert_eq!(lines_cut("abcdef\nx", &small(10, 4)), 0..2);
        assert_eq!(lines_cut(" a\nb\nc \n", &small(2, 100)), 2..3);
        assert_eq!(lines_cut("", &small(2, 100)), 1..1);
    }

    #[test]
    fn strips_block_comments_only() {
        let cases = [
            ("no comment\r\n", "no comment\r\n"),
            ("a\n<!-- x -->\n\nb\r\n", "a\nb\n"),
            ("  <!-- x\ny --> tail\nb", "   tail\nb"),
            ("<!-- a --><!-- b -->\nc", "c"),
            ("text <!-- inline --> more\n", "text <!-- inline --> more\n"),
            ("    <!-- code -->\n", "    <!-- code -->\n"),
            (
                "```\n<!-- in fence -->\n```\n<!-- out -->\nz",
                "```\n<!-- in fence -->\n```\nz",
            ),
            ("a\n<!-- never closed\nb\n", "a\n<!-- never closed\nb\n"),
            (
                "a\n    <!-- never closed\nb\n",
                "a\n    <!-- never closed\nb\n",
            ),
            // The first `-->` anywhere closes, even on a later comment's line.
            ("a\n<!-- open\nb\n<!-- c -->\nz", "a\nz"),
            ("<!-->\nx", "<!-->\nx"),
            ("- a\n<!-- x -->\n- b", "- a\n- b"),
        ];
        for (input, expected) in cases {
            assert_eq!(strip_block_html_comments(input), expected, "{input:?}");
        }
    }

    #[test]
    fn prepares_index_without_frontmatter_and_comments() {
        let raw = "---\ntitle: x\n---\n\n<!-- keep short -->\n- [A](a.md) — a\n";
        assert_eq!(prepare_index_for_model(raw), "- [A](a.md) — a\n");
        // A BOM before the delimiter keeps the frontmatter as text, as in the reference.
        let raw = "\u{FEFF}---\ntitle: x\n---\n- a";
        assert_eq!(prepare_index_for_model(raw), raw);
    }
}
