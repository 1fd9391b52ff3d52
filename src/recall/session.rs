//! Turn-loop helpers: when to recall at all, and the per-session budget
//! of surfaced text.

use super::surface::SurfacedMemory;
use crate::jsstr::{is_js_whitespace, js_trim, utf16_len};
use crate::str_map::StrMap;
use crate::types::MAX_SESSION_UNITS;

/// Whether a user prompt is worth a recall: after JS `trim()`, it must contain a whitespace
/// character (single-word prompts such as `yes` or `continue` are skipped, as in the reference).
///
/// ```
/// use memdir::recall::should_recall;
/// assert!(should_recall("fix the build"));
/// assert!(!should_recall("  continue \n"));
/// assert!(!should_recall(""));
/// ```
pub fn should_recall(query: &str) -> bool {
    js_trim(query).chars().any(is_js_whitespace)
}

/// What a session has surfaced so far: the paths (never surfaced twice) and the total size of
/// the surfaced contents in UTF-16 units. Recall stops once the total reaches 61,440 units;
/// [`SessionBudget::reset`] after the transcript is compacted.
///
/// ```
/// use memdir::recall::{SessionBudget, SurfacedMemory};
/// let mut budget = SessionBudget::new();
/// budget.record(&SurfacedMemory { path: "/m/a.md".into(), content: "héllo".into(),
///     mtime_ms: 0.0, header: String::new(), limit: None });
/// assert_eq!(budget.used_units(), 5);
/// assert!(budget.has_surfaced("/m/a.md"));
/// assert!(!budget.is_exhausted());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionBudget {
    used_units: usize,
    paths: Vec<String>,
    seen: StrMap<()>,
}

impl SessionBudget {
    /// An empty budget.
    pub fn new() -> Self {
        SessionBudget::default()
    }

    /// Count a memory that was shown to the model.
    pub fn record(&mut self, memory: &SurfacedMemory) {
        self.used_units = self.used_units.saturating_add(utf16_len(&memory.content));
        if self.seen.insert(memory.path.clone(), ()).is_none() {
            self.paths.push(memory.path.clone());
        }
    }

    /// UTF-16 units of surfaced content so far.
    pub fn used_units(&self) -> usize {
        self.used_units
    }

    /// True once the session has surfaced 61,440 units or more: recall no more.
    pub fn is_exhausted(&self) -> bool {
        self.used_units >= MAX_SESSION_UNITS
    }

    /// True when `path` was already surfaced in this session.
    pub fn has_surfaced(&self, path: &str) -> bool {
        self.seen.contains_key(path)
    }

    /// The surfaced paths in the order they were first shown (pass as `already_surfaced`).
    pub fn surfaced_paths(&self) -> &[String] {
        &self.paths
    }

    /// Forget everything (the transcript was compacted, so the surfaced text is gone).
    pub fn reset(&mut self) {
        *self = SessionBudget::default();
    }
}
