//! MEMORY.md caps (reference §3.1) and preparing it for the model (§3.2).
// OWNER: core-text helper.
use crate::types::{MAX_ENTRYPOINT_LINES, MAX_ENTRYPOINT_UNITS};
use serde::Serialize;

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

/// Apply the caps exactly as the reference does.
pub fn truncate_entrypoint(raw: &str, options: &TruncateOptions) -> EntrypointTruncation {
    todo!("{raw}{options:?}")
}
