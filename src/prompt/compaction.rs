//! The compaction reminder: a short section added to the memory prompt when `MEMORY.md` nears
//! its caps, so the model tidies the index before entries start falling off its end (the
//! reference reminds the agent likewise since 2.1.186). The wording is our own.

use serde::{Deserialize, Serialize};

/// How full `MEMORY.md` is: the lines and UTF-16 units of what the model loads, against the caps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexUsage {
    /// Lines of the loaded index.
    pub line_count: usize,
    /// UTF-16 units of the loaded index.
    pub unit_count: usize,
    /// The line cap (200 by default).
    pub max_lines: usize,
    /// The unit cap (25,000 by default).
    pub max_units: usize,
}

/// Share of either cap, in percent, from which the reminder is shown.
pub const NEAR_LIMIT_PERCENT: usize = 80;

impl IndexUsage {
    /// At or past [`NEAR_LIMIT_PERCENT`] of either cap.
    ///
    /// ```
    /// use memdir::prompt::IndexUsage;
    /// let usage = IndexUsage { line_count: 160, unit_count: 900, max_lines: 200, max_units: 25_000 };
    /// assert!(usage.is_near_limit());
    /// assert!(!IndexUsage { line_count: 159, ..usage }.is_near_limit());
    /// ```
    pub fn is_near_limit(&self) -> bool {
        let near = |used: usize, cap: usize| {
            used.saturating_mul(100) >= cap.saturating_mul(NEAR_LIMIT_PERCENT)
        };
        near(self.line_count, self.max_lines) || near(self.unit_count, self.max_units)
    }
}

/// The reminder section for `usage` (heading, blank line, one paragraph), or nothing when the
/// index is not near its caps.
///
/// ```
/// use memdir::prompt::{compaction_reminder, IndexUsage};
/// let usage = IndexUsage { line_count: 190, unit_count: 9_000, max_lines: 200, max_units: 25_000 };
/// let lines = compaction_reminder(&usage);
/// assert_eq!(lines[0], "## MEMORY.md is nearly full");
/// assert!(lines[2].contains("190 of its 200 lines"));
/// assert!(compaction_reminder(&IndexUsage { line_count: 3, ..usage }).is_empty());
/// ```
pub fn compaction_reminder(usage: &IndexUsage) -> Vec<String> {
    if !usage.is_near_limit() {
        return Vec::new();
    }
    vec![
        "## MEMORY.md is nearly full".to_owned(),
        String::new(),
        format!(
            "The index uses {} of its {} lines and {} of its {} characters. Past either limit its \
             last entries are not loaded, and a save that would go past it is refused. Compact it \
             before adding more: fold entries about the same topic into one, cut each hook to a \
             short line, and drop pointers to memories that are outdated or gone (removing or \
             merging those files too).",
            usage.line_count, usage.max_lines, usage.unit_count, usage.max_units
        ),
    ]
}
