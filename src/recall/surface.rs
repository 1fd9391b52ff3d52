//! Surfacing: the text a recalled memory is shown to the model with — the
//! first 200 lines within 4,096 UTF-8 bytes, a truncation note, and an age header. Pure; reading
//! the files from a store is [`super::find::surface_memories`].

use crate::types::{MAX_SURFACED_BYTES, MAX_SURFACED_LINES};
use serde::Serialize;

/// One memory ready to show the model (the reference's `relevant_memories` entry).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SurfacedMemory {
    /// Absolute path of the memory file.
    pub path: String,
    /// The shown text, with the truncation note when the file was cut.
    pub content: String,
    /// Modification time (from the scan), ms since the epoch.
    pub mtime_ms: f64,
    /// The age header shown above the content ([`crate::age::memory_header`]); computed once so
    /// it stays the same across turns.
    pub header: String,
    /// Number of lines shown, present only when the file was truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// The surfaced form of a memory file whose text is `text`.
///
/// Lines are `\n`-separated after dropping one leading BOM; one trailing `\r` is dropped from each
/// line. Lines are taken in order while the shown text (lines joined with `\n`) stays within
/// 4,096 UTF-8 bytes, at most 200 of them; the first line that does not fit ends the selection.
/// The memory is truncated when a line was left out — except the empty fragment after a final
/// `\n`, which is not a line (our fix: the reference calls a file of exactly 200 lines ending in a
/// newline truncated). A truncated memory gets a note naming the reason (the byte limit wins)
/// and where to read the whole file, and `limit` = lines shown.
///
/// ```
/// use memdir::recall::surface_text;
/// let s = surface_text("/m/a.md", "\u{feff}one\r\ntwo\n", 0.0, 0.0);
/// assert_eq!(s.content, "one\ntwo\n");
/// assert_eq!(s.limit, None);
/// let long = "x\n".repeat(300);
/// let t = surface_text("/m/b.md", &long, 0.0, 0.0);
/// assert_eq!(t.limit, Some(200));
/// assert!(t.content.ends_with("\n\n> This memory file was truncated (first 200 lines). \
///     Use the Read tool to view the complete file at: /m/b.md"));
/// ```
pub fn surface_text(path: &str, text: &str, mtime_ms: f64, now_ms: f64) -> SurfacedMemory {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let total_lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut content = String::new();
    let mut shown = 0usize;
    let mut bytes = 0usize;
    let mut stopped_by_bytes = false;
    for raw in text.split('\n') {
        if shown >= MAX_SURFACED_LINES {
            break;
        }
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let separator = usize::from(shown > 0);
        let needed = bytes + separator + line.len();
        if needed > MAX_SURFACED_BYTES {
            stopped_by_bytes = true;
            break;
        }
        if separator == 1 {
            content.push('\n');
        }
        content.push_str(line);
        bytes = needed;
        shown += 1;
    }
    let only_final_fragment_left = text.ends_with('\n') && shown + 1 == total_lines;
    let truncated = (total_lines > shown) && !only_final_fragment_left;
    let mut limit = None;
    if truncated {
        let why = if stopped_by_bytes {
            format!("{MAX_SURFACED_BYTES} byte limit")
        } else {
            format!("first {MAX_SURFACED_LINES} lines")
        };
        content.push_str(&format!(
            "\n\n> This memory file was truncated ({why}). Use the Read tool to view the complete file at: {path}"
        ));
        limit = Some(shown);
    }
    SurfacedMemory {
        path: path.to_owned(),
        content,
        mtime_ms,
        // A `modified` key (reference 2.1.214) dates the memory better than the mtime.
        header: crate::age::memory_header(
            path,
            crate::frontmatter::age_time_ms(text, mtime_ms),
            now_ms,
        ),
        limit,
    }
}

/// The message text the model sees for one surfaced memory:
/// `<system-reminder>\n<header>\n\n<content>\n</system-reminder>`.
///
/// ```
/// use memdir::recall::{render_surfaced, SurfacedMemory};
/// let m = SurfacedMemory { path: "/m/a.md".into(), content: "body".into(), mtime_ms: 0.0,
///     header: "Memory (saved today): /m/a.md:".into(), limit: None };
/// assert_eq!(render_surfaced(&m),
///     "<system-reminder>\nMemory (saved today): /m/a.md:\n\nbody\n</system-reminder>");
/// ```
pub fn render_surfaced(memory: &SurfacedMemory) -> String {
    format!(
        "<system-reminder>\n{}\n\n{}\n</system-reminder>",
        memory.header, memory.content
    )
}
