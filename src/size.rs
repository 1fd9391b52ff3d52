//! `formatFileSize` (reference §3.1, §16.4).
// OWNER: core-text helper.

/// Human size as the reference prints it: `1023 bytes`, `1KB`, `24.4KB`, `1MB` (JS `toFixed(1)`).
pub fn format_file_size(n: f64) -> String {
    todo!("{n}")
}
