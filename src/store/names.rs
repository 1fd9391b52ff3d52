//! Memory file names: deriving a safe name from a memory's title, and checking names that come
//! from callers (or from an LLM) before anything is written. Pure.

use crate::error::{Code, Error, Result};
use crate::types::{MemoryType, ENTRYPOINT_NAME};

/// Longest slug taken from a name, in ASCII characters.
pub const MAX_SLUG_LEN: usize = 60;
/// Longest path segment accepted, in bytes (common filesystem limit).
pub const MAX_SEGMENT_BYTES: usize = 255;
/// How many `-N` suffixes a derived name tries before giving up.
pub const MAX_NAME_ATTEMPTS: u32 = 1000;

/// Lowercase ASCII letters and digits of `name`, every other run of characters as one `_`,
/// trimmed and cut to [`MAX_SLUG_LEN`]; `memory` when nothing is left.
///
/// ```
/// use memdir::store::names::slugify;
/// assert_eq!(slugify("Prefers tabs, not spaces!"), "prefers_tabs_not_spaces");
/// assert_eq!(slugify("../../etc/passwd"), "etc_passwd");
/// assert_eq!(slugify("日本語"), "memory");
/// ```
pub fn slugify(name: &str) -> String {
    let mut slug = String::new();
    let mut gap = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !slug.is_empty() {
                slug.push('_');
            }
            gap = false;
            slug.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
        if slug.len() >= MAX_SLUG_LEN {
            break;
        }
    }
    // Only ASCII was pushed, so every byte index is a char boundary.
    crate::jsstr::truncate_ascii(&mut slug, MAX_SLUG_LEN);
    let slug = slug.trim_end_matches('_');
    if slug.is_empty() {
        "memory".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The file name a memory gets when the caller names none: `<type>_<slug>.md`, then
/// `<type>_<slug>-2.md`, `-3` … for `attempt` 2, 3 ….
///
/// ```
/// use memdir::{MemoryType, store::names::derived_file_name};
/// assert_eq!(derived_file_name(MemoryType::Feedback, "Use tabs", 1), "feedback_use_tabs.md");
/// assert_eq!(derived_file_name(MemoryType::Feedback, "Use tabs", 3), "feedback_use_tabs-3.md");
/// ```
pub fn derived_file_name(memory_type: MemoryType, name: &str, attempt: u32) -> String {
    let slug = slugify(name);
    if attempt <= 1 {
        format!("{}_{slug}.md", memory_type.as_str())
    } else {
        format!("{}_{slug}-{attempt}.md", memory_type.as_str())
    }
}

fn invalid(code: Code, file: &str, why: &str) -> Error {
    Error::new(code, format!("bad memory file name {file:?}: {why}"))
}

/// Check a memory file name relative to a memory directory: non-empty, relative, `/`-separated,
/// no `.`/`..`/empty segments, no NUL, backslash or control characters, ends with `.md`, and its
/// last segment is not `MEMORY.md`.
///
/// ```
/// use memdir::store::names::check_memory_file;
/// assert!(check_memory_file("sub/user_role.md").is_ok());
/// assert_eq!(check_memory_file("../x.md").unwrap_err().code, memdir::Code::PathEscapes);
/// assert_eq!(check_memory_file("/etc/x.md").unwrap_err().code, memdir::Code::PathAbsolute);
/// assert_eq!(check_memory_file("MEMORY.md").unwrap_err().code, memdir::Code::InvalidMemory);
/// ```
pub fn check_memory_file(file: &str) -> Result<()> {
    if file.is_empty() {
        return Err(invalid(Code::InvalidMemory, file, "empty"));
    }
    if file.contains('\0') {
        return Err(invalid(Code::PathNullByte, file, "contains NUL"));
    }
    if file.contains('\\') {
        return Err(invalid(Code::PathBackslash, file, "contains a backslash"));
    }
    let drive = file.as_bytes().get(1) == Some(&b':');
    if file.starts_with('/') || drive {
        return Err(invalid(Code::PathAbsolute, file, "must be relative"));
    }
    if file.chars().any(char::is_control) {
        return Err(invalid(Code::InvalidMemory, file, "contains control chars"));
    }
    for segment in file.split('/') {
        match segment {
            "." | ".." => {
                return Err(invalid(Code::PathEscapes, file, "`.`/`..` segment"));
            }
            "" => return Err(invalid(Code::InvalidMemory, file, "empty segment")),
            s if s.len() > MAX_SEGMENT_BYTES => {
                return Err(invalid(Code::InvalidMemory, file, "segment too long"));
            }
            _ => {}
        }
    }
    let base = file.rsplit('/').next().unwrap_or(file);
    if !base.ends_with(".md") || base == ".md" {
        return Err(invalid(Code::InvalidMemory, file, "must end with .md"));
    }
    if base == ENTRYPOINT_NAME {
        return Err(invalid(Code::InvalidMemory, file, "MEMORY.md is the index"));
    }
    Ok(())
}

/// Check a one-line text field (`name`, `description`): non-empty after trimming, no line
/// breaks or other control characters.
///
/// ```
/// use memdir::store::names::check_single_line;
/// assert!(check_single_line("name", "Use tabs").is_ok());
/// assert!(check_single_line("description", "a\nb").is_err());
/// assert!(check_single_line("name", "  ").is_err());
/// ```
pub fn check_single_line(field: &str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        return Err(Error::new(
            Code::InvalidMemory,
            format!("{field} must not be empty"),
        ));
    }
    if value.chars().any(|c| c.is_control() && c != '\t')
        || value.contains(['\u{2028}', '\u{2029}'])
    {
        return Err(Error::new(
            Code::InvalidMemory,
            format!("{field} must be a single line"),
        ));
    }
    Ok(())
}

/// Parse a memory type exactly (`user`, `feedback`, `project`, `reference`).
///
/// ```
/// use memdir::store::names::check_memory_type;
/// assert_eq!(check_memory_type("project").unwrap(), memdir::MemoryType::Project);
/// assert!(check_memory_type("Project").is_err());
/// ```
pub fn check_memory_type(value: &str) -> Result<MemoryType> {
    MemoryType::parse(value).ok_or_else(|| {
        Error::new(
            Code::InvalidMemory,
            format!("type {value:?} is not one of user, feedback, project, reference"),
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn slug_is_bounded_and_ascii() {
        let long = "Word ".repeat(40);
        let slug = slugify(&long);
        assert!(slug.len() <= MAX_SLUG_LEN);
        assert!(!slug.ends_with('_'));
        assert_eq!(&slug[..10], "word_word_");
        assert_eq!(slugify("  --Hello--World--  "), "hello_world");
        assert_eq!(slugify("Ünïcode café 2"), "n_code_caf_2");
    }

    #[test]
    fn rejects_hostile_names() {
        let cases = [
            ("", Code::InvalidMemory),
            ("a\0.md", Code::PathNullByte),
            ("a\\b.md", Code::PathBackslash),
            ("/abs.md", Code::PathAbsolute),
            ("C:x.md", Code::PathAbsolute),
            ("a/../../b.md", Code::PathEscapes),
            ("./a.md", Code::PathEscapes),
            ("a//b.md", Code::InvalidMemory),
            ("a.txt", Code::InvalidMemory),
            ("a.MD", Code::InvalidMemory),
            (".md", Code::InvalidMemory),
            ("sub/MEMORY.md", Code::InvalidMemory),
            ("a\nb.md", Code::InvalidMemory),
            ("dir/", Code::InvalidMemory),
        ];
        for (file, code) in cases {
            assert_eq!(check_memory_file(file).unwrap_err().code, code, "{file:?}");
        }
        assert!(check_memory_file(".hidden.md").is_ok());
        assert!(check_memory_file("a..b.md").is_ok());
        let long = format!("{}.md", "x".repeat(300));
        assert!(check_memory_file(&long).is_err());
    }

    #[test]
    fn single_line_fields() {
        assert!(check_single_line("d", "tab\tis fine").is_ok());
        assert!(check_single_line("d", "cr\r").is_err());
        assert!(check_single_line("d", "ls\u{2028}x").is_err());
    }
}
