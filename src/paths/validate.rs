//! `validateMemoryPath` (reference §2.4), POSIX rules.

use super::posix::{is_absolute, join_all, normalize};
use crate::jsstr::utf16_len;

/// Validate a configured memory directory and put it in canonical form: normalised, exactly one
/// trailing `/`. `None` rejects it. Rules (reference §2.4):
///
/// 1. empty → reject;
/// 2. only when `expand_tilde`: `~/rest` (or `~\rest`) becomes `home/rest`, rejected when `rest`
///    normalises to `.` or `..` (so `~/`, `~/.`, `~/..`, `~/foo/..`); `~/../x` is accepted, as in
///    the reference; a bare `~` is not expanded;
/// 3. normalise, then strip every trailing `/` and `\`;
/// 4. reject if not absolute, shorter than 3 UTF-16 units, a drive letter (`C:`), starting with
///    `\\` or `//`, or containing NUL;
/// 5. append `/`.
///
/// Whitespace is not trimmed (`" /mnt/m"` is relative). The reference finally applies Unicode NFC;
/// this crate has no normalisation tables, so the path is returned in the form it came in (ASCII
/// and already-composed paths, which is what file systems hand out on Linux and Windows, are
/// unaffected). The JS boundary may apply `String.prototype.normalize("NFC")`.
///
/// ```
/// use memdir::paths::validate_memory_path;
/// assert_eq!(validate_memory_path("/ab//", false, "/home/u").as_deref(), Some("/ab/"));
/// assert_eq!(validate_memory_path("~/mem", true, "/home/u").as_deref(), Some("/home/u/mem/"));
/// assert_eq!(validate_memory_path("~/mem", false, "/home/u"), None);
/// assert_eq!(validate_memory_path("/a", false, "/home/u"), None);
/// ```
pub fn validate_memory_path(raw: &str, expand_tilde: bool, home: &str) -> Option<String> {
    if raw.is_empty() {
        return None;
    }
    let mut candidate = raw.to_owned();
    if expand_tilde && (raw.starts_with("~/") || raw.starts_with("~\\")) {
        // Both prefixes are two ASCII bytes.
        let rest = raw.get(2..).unwrap_or("");
        let rest_normalized = normalize(if rest.is_empty() { "." } else { rest });
        if rest_normalized == "." || rest_normalized == ".." {
            return None;
        }
        candidate = join_all(&[home, rest]);
    }
    let normalized = normalize(&candidate);
    let normalized = normalized.trim_end_matches(['/', '\\']);
    let rejected = !is_absolute(normalized)
        || utf16_len(normalized) < 3
        || is_drive_letter(normalized)
        || normalized.starts_with("\\\\")
        || normalized.starts_with("//")
        || normalized.contains('\0');
    if rejected {
        return None;
    }
    Some(format!("{normalized}/"))
}

/// `^[A-Za-z]:$`.
fn is_drive_letter(path: &str) -> bool {
    matches!(path.as_bytes(), [letter, b':'] if letter.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drive_letters() {
        assert!(is_drive_letter("C:"));
        assert!(!is_drive_letter("C:/"));
        assert!(!is_drive_letter("1:"));
        assert!(!is_drive_letter("é"));
    }

    #[test]
    fn nul_and_whitespace_rejected() {
        assert_eq!(validate_memory_path("/tmp/a\0b", false, "/h"), None);
        assert_eq!(validate_memory_path(" /mnt/m", false, "/h"), None);
    }
}
