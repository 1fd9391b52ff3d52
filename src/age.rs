//! Memory age and freshness (reference §7).
// OWNER: paths/manifest helper.

/// Whole elapsed days, clamped at 0.
pub fn memory_age_days(mtime_ms: f64, now_ms: f64) -> u64 {
    todo!("{mtime_ms}{now_ms}")
}

/// `today`, `yesterday`, `N days ago`.
pub fn memory_age(mtime_ms: f64, now_ms: f64) -> String {
    todo!("{mtime_ms}{now_ms}")
}

/// The staleness caveat for memories two or more days old; empty otherwise.
pub fn memory_freshness_text(mtime_ms: f64, now_ms: f64) -> String {
    todo!("{mtime_ms}{now_ms}")
}

/// The header put above a surfaced memory.
pub fn memory_header(path: &str, mtime_ms: f64, now_ms: f64) -> String {
    todo!("{path}{mtime_ms}{now_ms}")
}
