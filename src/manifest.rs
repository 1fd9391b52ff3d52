//! The manifest of memory headers (reference §5.3).
// OWNER: paths/manifest helper.
use crate::types::MemoryHeader;

/// `YYYY-MM-DDTHH:mm:ss.sssZ` from fractional milliseconds, as JS `toISOString`.
pub fn iso_timestamp(ms: f64) -> String {
    todo!("{ms}")
}

/// One line per header, joined with `\n`.
pub fn format_manifest(headers: &[MemoryHeader]) -> String {
    todo!("{}", headers.len())
}
