//! `validateMemoryPath`, with the path rules of the host's platform (POSIX or Windows).

use super::style::PathStyle;
use super::win32::win32_root;
use crate::error::{Code, Error, Result};
use crate::jsstr::utf16_len;

/// Validate a configured memory directory and put it in canonical form: normalised, exactly one
/// trailing `/`. `None` rejects it. Rules:
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
    validate_memory_path_in(PathStyle::Posix, raw, expand_tilde, home)
}

/// [`validate_memory_path`] with the path rules of `style`. On Windows, as the reference there:
/// `C:\Users\u\mem` and `C:/Users/u/mem` become `C:\Users\u\mem\`; `~\mem` expands against
/// `home`; a bare drive (`C:`, `C:\`), a drive-relative `C:mem`, and UNC paths (`\\server\share`,
/// `//server/share`) are rejected (the reference refuses a memory directory on a network share).
///
/// ```
/// use memdir::paths::{validate_memory_path_in, PathStyle};
/// let w = PathStyle::Win32;
/// assert_eq!(validate_memory_path_in(w, "C:/Users/u/mem//", false, "").as_deref(), Some("C:\\Users\\u\\mem\\"));
/// assert_eq!(validate_memory_path_in(w, "~\\mem", true, "C:\\Users\\u").as_deref(), Some("C:\\Users\\u\\mem\\"));
/// assert_eq!(validate_memory_path_in(w, "\\\\server\\share\\mem", false, ""), None);
/// assert_eq!(validate_memory_path_in(w, "C:\\", false, ""), None);
/// ```
pub fn validate_memory_path_in(
    style: PathStyle,
    raw: &str,
    expand_tilde: bool,
    home: &str,
) -> Option<String> {
    if raw.is_empty() {
        return None;
    }
    let mut candidate = raw.to_owned();
    if expand_tilde && (raw.starts_with("~/") || raw.starts_with("~\\")) {
        // Both prefixes are two ASCII bytes.
        let rest = raw.get(2..).unwrap_or("");
        let rest_normalized = style.normalize(if rest.is_empty() { "." } else { rest });
        if rest_normalized == "." || rest_normalized == ".." {
            return None;
        }
        candidate = style.join(&[home, rest]);
    }
    let normalized = style.normalize(&candidate);
    let normalized = normalized.trim_end_matches(['/', '\\']);
    let rejected = !style.is_absolute(normalized)
        || utf16_len(normalized) < 3
        || is_drive_letter(normalized)
        || normalized.starts_with("\\\\")
        || normalized.starts_with("//")
        || normalized.contains('\0');
    if rejected {
        return None;
    }
    Some(format!("{normalized}{}", style.sep()))
}

/// Check the directory a store or memdir is opened on: non-empty, no NUL, absolute (`/…`; on
/// Windows a drive and a separator, a UNC share `\\\\server\\share\\…`, or a rooted `\\…`),
/// and not a filesystem root (`/`, `C:\\`, `\\\\server\\share\\`). Every file the library
/// writes goes under it, so an empty or relative directory (which the host would resolve
/// against its working directory, or as the root) is refused with `INVALID_INPUT`.
///
/// ```
/// use memdir::{paths::check_memory_dir, Code};
/// assert!(check_memory_dir("/home/u/memory/").is_ok());
/// assert!(check_memory_dir("C:/Users/u/memory/").is_ok());
/// assert_eq!(check_memory_dir("").unwrap_err().code, Code::InvalidInput);
/// assert_eq!(check_memory_dir("/").unwrap_err().code, Code::InvalidInput);
/// assert_eq!(check_memory_dir("memory/").unwrap_err().code, Code::InvalidInput);
/// assert_eq!(check_memory_dir("/m\0x/").unwrap_err().code, Code::InvalidInput);
/// ```
pub fn check_memory_dir(dir: &str) -> Result<()> {
    let fail = |why: &str| {
        Err(Error::new(
            Code::InvalidInput,
            format!("the memory directory {dir:?} {why}"),
        ))
    };
    if dir.is_empty() {
        return fail("is empty; pass an absolute path");
    }
    if dir.contains('\0') {
        return fail("contains a NUL byte");
    }
    let style = PathStyle::of_dir(dir);
    if !style.is_absolute(dir) {
        return fail("is relative; pass an absolute path");
    }
    let rest = match style {
        PathStyle::Win32 => dir.get(win32_root(dir).len()..).unwrap_or(""),
        PathStyle::Posix => dir,
    };
    if rest.trim_matches(['/', '\\']).is_empty() {
        return fail("is a filesystem root");
    }
    Ok(())
}

/// `^[A-Za-z]:$`.
fn is_drive_letter(path: &str) -> bool {
    matches!(path.as_bytes(), [letter, b':'] if letter.is_ascii_alphabetic())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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
    fn memory_dirs() {
        for ok in [
            "/m/",
            "/m",
            "D:\\mem\\",
            "/a b/",
            "\\\\srv\\share\\mem\\",
            "c:/m/",
        ] {
            assert!(check_memory_dir(ok).is_ok(), "{ok:?}");
        }
        for bad in [
            "",
            "/",
            "//",
            "C:/",
            "C:",
            "x",
            "./m/",
            " /m",
            "/m\0/",
            "C:m\\",
            "\\\\srv\\share\\",
            "D:\\\\",
        ] {
            let err = check_memory_dir(bad).unwrap_err();
            assert_eq!(err.code, Code::InvalidInput, "{bad:?}");
        }
    }

    #[test]
    fn nul_and_whitespace_rejected() {
        assert_eq!(validate_memory_path("/tmp/a\0b", false, "/h"), None);
        assert_eq!(validate_memory_path(" /mnt/m", false, "/h"), None);
    }
}
