//! Memory age and freshness. Times come in as arguments: milliseconds since the
//! epoch, possibly fractional; nothing here reads a clock.

use crate::types::DAY_MS;

/// Whole elapsed 24-hour periods between `mtime_ms` and `now_ms`, clamped at 0 (a future mtime is
/// 0 days old; 23 hours across midnight is still 0). Not-a-number inputs give 0.
///
/// ```
/// use memdir::memory_age_days;
/// assert_eq!(memory_age_days(0.0, 86_400_000.0 * 2.5), 2);
/// assert_eq!(memory_age_days(10.0, 0.0), 0);
/// ```
pub fn memory_age_days(mtime_ms: f64, now_ms: f64) -> u64 {
    let days = ((now_ms - mtime_ms) / DAY_MS).floor();
    if days > 0.0 {
        // Saturating float-to-int conversion: +∞ becomes u64::MAX.
        days as u64
    } else {
        0
    }
}

/// `today`, `yesterday` or `<n> days ago`.
///
/// ```
/// use memdir::memory_age;
/// let now = 1_700_000_000_000.0;
/// assert_eq!(memory_age(now - 1.0, now), "today");
/// assert_eq!(memory_age(now - 86_400_000.0, now), "yesterday");
/// assert_eq!(memory_age(now - 2.0 * 86_400_000.0, now), "2 days ago");
/// ```
pub fn memory_age(mtime_ms: f64, now_ms: f64) -> String {
    match memory_age_days(mtime_ms, now_ms) {
        0 => "today".to_owned(),
        1 => "yesterday".to_owned(),
        n => format!("{n} days ago"),
    }
}

/// The staleness caveat for a memory two or more days old, empty otherwise: three sentences on one
/// line, the first exactly `This memory is <n> days old.`, no trailing newline. It says the memory
/// records a moment rather than the live state, that what it claims about code (behaviour,
/// `file:line` citations) may have changed, and to check the current code before stating it as
/// fact.
///
/// ```
/// use memdir::memory_freshness_text;
/// let now = 1_700_000_000_000.0;
/// assert_eq!(memory_freshness_text(now - 86_400_000.0, now), "");
/// assert!(memory_freshness_text(now - 3.0 * 86_400_000.0, now).starts_with("This memory is 3 days old. "));
/// ```
pub fn memory_freshness_text(mtime_ms: f64, now_ms: f64) -> String {
    let days = memory_age_days(mtime_ms, now_ms);
    if days <= 1 {
        return String::new();
    }
    format!(
        "This memory is {days} days old. \
         It records what was true when it was saved \u{2014} a snapshot, not the live state of \
         the project, so what it says about how code behaves or where it lives (file:line) may no \
         longer hold. \
         Check it against the current code before you present it as fact."
    )
}

/// [`memory_freshness_text`] inside `<system-reminder>` tags (no newlines inside them) plus one
/// `\n`; empty when the memory is fresh. Prefixed to a memory file the model reads.
///
/// ```
/// use memdir::age::memory_freshness_note;
/// let now = 1_700_000_000_000.0;
/// assert_eq!(memory_freshness_note(now, now), "");
/// let note = memory_freshness_note(now - 5.0 * 86_400_000.0, now);
/// assert!(note.starts_with("<system-reminder>This memory is 5 days old."));
/// assert!(note.ends_with(".</system-reminder>\n"));
/// ```
pub fn memory_freshness_note(mtime_ms: f64, now_ms: f64) -> String {
    let text = memory_freshness_text(mtime_ms, now_ms);
    if text.is_empty() {
        return text;
    }
    format!("<system-reminder>{text}</system-reminder>\n")
}

/// The header put above a surfaced memory: `Memory (saved today): <path>:` or
/// `Memory (saved yesterday): <path>:`, else the freshness caveat, a blank line and
/// `Memory: <path>:`.
///
/// ```
/// use memdir::memory_header;
/// let now = 1_700_000_000_000.0;
/// assert_eq!(memory_header("/m/a.md", now - 86_400_000.0, now), "Memory (saved yesterday): /m/a.md:");
/// assert!(memory_header("/m/a.md", now - 3.0 * 86_400_000.0, now).ends_with(".\n\nMemory: /m/a.md:"));
/// ```
pub fn memory_header(path: &str, mtime_ms: f64, now_ms: f64) -> String {
    let text = memory_freshness_text(mtime_ms, now_ms);
    if text.is_empty() {
        format!("Memory (saved {}): {path}:", memory_age(mtime_ms, now_ms))
    } else {
        format!("{text}\n\nMemory: {path}:")
    }
}
