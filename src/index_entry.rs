//! MEMORY.md index lines: `- [Title](file.md) — hook`.
// OWNER: paths/manifest helper.
use serde::{Deserialize, Serialize};

/// One index line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// Link text.
    pub title: String,
    /// Link target, relative to the index.
    pub file: String,
    /// The one-line hook after the dash (may be empty).
    pub hook: String,
}

/// Parse one line; `None` if it is not an entry.
pub fn parse_index_entry(line: &str) -> Option<IndexEntry> {
    todo!("{line}")
}

/// Format one entry.
pub fn format_index_entry(entry: &IndexEntry) -> String {
    todo!("{entry:?}")
}

/// The index text with the entry for `entry.file` replaced in place, or appended if absent.
pub fn upsert_index_entry(index: &str, entry: &IndexEntry) -> String {
    todo!("{index}{entry:?}")
}

/// The index text without any entry pointing at `file`.
pub fn remove_index_entry(index: &str, file: &str) -> String {
    todo!("{index}{file}")
}
