//! Memory file names: deriving a safe name from a memory's title, and checking names that come
//! from callers (or from an LLM) before anything is written. Pure.

use super::LOGS_DIR;
use crate::error::{Code, Error, Result};
use crate::index_entry::{format_index_entry, parse_index_entry, IndexEntry};
use crate::path_key::sanitize_path_key;
use crate::types::{MemoryType, ENTRYPOINT_NAME};

/// Longest slug taken from a name, in ASCII characters.
pub const MAX_SLUG_LEN: usize = 60;
/// Longest path segment accepted, in bytes (common filesystem limit).
pub const MAX_SEGMENT_BYTES: usize = 255;

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

/// The file name a memory gets when the caller names none: `<type>_<slug>.md` (`attempt` 1,
/// what `save` uses). `<type>_<slug>-2.md`, `-3` … for `attempt` 2, 3 … are free names a host may
/// pass as `file` to keep two memories whose names slug alike; `save` itself never picks them.
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

/// Check a memory file name relative to a memory directory (or to the team directory): the one
/// name policy of every write path, for both scopes. Non-empty, relative, `/`-separated; no
/// NUL, backslash or control characters; no traversal hidden in URL encoding or Unicode
/// look-alikes ([`sanitize_path_key`], as team keys); no bidirectional or invisible formatting
/// characters ([`is_hidden_char`]); no `.`/`..`/empty segments; no segment Windows reads as
/// something else (a `:`, a reserved device name such as `con.md`, a trailing `.` or space:
/// refused on every platform, since a memory directory may be shared with Windows); ends with
/// `.md`; its last segment is not `MEMORY.md`; not under `logs/` (the daily logs, [`check_not_log`]); and an
/// index line can name it ([`check_index_representable`]).
///
/// ```
/// use memdir::store::names::check_memory_file;
/// assert!(check_memory_file("sub/user_role.md").is_ok());
/// assert_eq!(check_memory_file("../x.md").unwrap_err().code, memdir::Code::PathEscapes);
/// assert_eq!(check_memory_file("/etc/x.md").unwrap_err().code, memdir::Code::PathAbsolute);
/// assert_eq!(check_memory_file("MEMORY.md").unwrap_err().code, memdir::Code::InvalidMemory);
/// assert_eq!(check_memory_file("%2e%2e/x.md").unwrap_err().code, memdir::Code::PathUrlEncodedTraversal);
/// assert_eq!(check_memory_file("logs/2026/12/2026-12-01.md").unwrap_err().code, memdir::Code::InvalidMemory);
/// assert_eq!(check_memory_file("a>) b.md").unwrap_err().code, memdir::Code::InvalidMemory);
/// assert_eq!(check_memory_file("notes:x.md").unwrap_err().code, memdir::Code::InvalidMemory);
/// assert_eq!(check_memory_file("sub/con.md").unwrap_err().code, memdir::Code::InvalidMemory);
/// assert_eq!(check_memory_file("team./x.md").unwrap_err().code, memdir::Code::InvalidMemory);
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
    sanitize_path_key(file)?;
    if file.chars().any(is_hidden_char) {
        return Err(invalid(
            Code::InvalidMemory,
            file,
            "contains a bidirectional or invisible formatting character",
        ));
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
            s => check_portable_segment(file, s)?,
        }
    }
    let base = file.rsplit('/').next().unwrap_or(file);
    if !base.ends_with(".md") || base == ".md" {
        return Err(invalid(Code::InvalidMemory, file, "must end with .md"));
    }
    if base == ENTRYPOINT_NAME {
        return Err(invalid(Code::InvalidMemory, file, "MEMORY.md is the index"));
    }
    check_not_log(file)?;
    check_index_representable(file)
}

/// Windows' reserved device names: a file whose name before its first `.` is one of these
/// (without case) opens the device, not a file.
const RESERVED_DEVICE_NAMES: [&str; 28] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "com¹", "com²", "com³", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8",
    "lpt9", "lpt¹", "lpt²", "lpt³",
];

/// True when `segment` (one path segment) is a Windows reserved device name, with or without an
/// extension, in any ASCII case: `con`, `NUL.md`, `com1.txt.md`, `Lpt9.md`.
///
/// ```
/// use memdir::store::names::is_reserved_device_name;
/// assert!(is_reserved_device_name("con.md") && is_reserved_device_name("LPT1.md"));
/// assert!(is_reserved_device_name("aux") && is_reserved_device_name("Nul.notes.md"));
/// assert!(!is_reserved_device_name("console.md") && !is_reserved_device_name("com10.md"));
/// ```
pub fn is_reserved_device_name(segment: &str) -> bool {
    let stem = segment.split('.').next().unwrap_or(segment);
    // Windows also ignores trailing spaces before the extension (`con .md`).
    let stem = stem.trim_end_matches(' ');
    RESERVED_DEVICE_NAMES
        .iter()
        .any(|name| stem.eq_ignore_ascii_case(name))
}

/// Refuse a segment Windows would read as something else: a `:` (an NTFS alternate data
/// stream, or a drive), a reserved device name ([`is_reserved_device_name`]), or a trailing
/// `.` or space (Windows drops them, so `a./` is `a/`). Refused on every platform: a memory
/// directory travels between machines through git or team sync.
fn check_portable_segment(file: &str, segment: &str) -> Result<()> {
    if segment.contains(':') {
        return Err(invalid(
            Code::InvalidMemory,
            file,
            "contains `:` (a stream or drive on Windows)",
        ));
    }
    if segment.ends_with('.') || segment.ends_with(' ') {
        return Err(invalid(
            Code::InvalidMemory,
            file,
            "a segment ends with `.` or a space (Windows drops them)",
        ));
    }
    if is_reserved_device_name(segment) {
        return Err(invalid(
            Code::InvalidMemory,
            file,
            "a segment is a reserved Windows device name",
        ));
    }
    Ok(())
}

/// Unicode characters that reorder or hide text without showing themselves: the bidirectional
/// controls (an RLO makes `evil\u{202E}dm.md` display as `evilmd.md`), zero-width characters
/// and the byte-order mark. No memory file name may hold one.
///
/// ```
/// use memdir::store::names::is_hidden_char;
/// assert!(is_hidden_char('\u{202E}'));
/// assert!(is_hidden_char('\u{200B}'));
/// assert!(!is_hidden_char('é'));
/// ```
pub fn is_hidden_char(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
    )
}

/// True when `rel` (relative to the memory directory) is the daily-log directory or inside it.
/// Compared without ASCII case, since `Logs/` is `logs/` on a case-insensitive disk.
///
/// ```
/// use memdir::store::names::is_log_path;
/// assert!(is_log_path("logs/2026/12/2026-12-01.md"));
/// assert!(is_log_path("Logs"));
/// assert!(!is_log_path("logsbook.md"));
/// ```
pub fn is_log_path(rel: &str) -> bool {
    let dir = LOGS_DIR.trim_end_matches('/');
    match rel.get(..dir.len()) {
        Some(head) if head.eq_ignore_ascii_case(dir) => {
            matches!(rel.as_bytes().get(dir.len()), None | Some(b'/'))
        }
        _ => false,
    }
}

/// Refuse a write to the daily logs (`logs/…`): they are appended through `append_log` only,
/// never created, changed, renamed or deleted as memories (`INVALID_MEMORY`).
///
/// ```
/// use memdir::store::names::check_not_log;
/// assert!(check_not_log("notes.md").is_ok());
/// assert_eq!(check_not_log("logs/2024/01/2024-01-01.md").unwrap_err().code, memdir::Code::InvalidMemory);
/// ```
pub fn check_not_log(rel: &str) -> Result<()> {
    if is_log_path(rel) {
        return Err(invalid(
            Code::InvalidMemory,
            rel,
            "logs/ holds the daily logs, which are only appended to",
        ));
    }
    Ok(())
}

/// Refuse a file name an index line `- [Title](file) — hook` cannot name: the line is
/// formatted and parsed back (with a hook and without), and it must name the same file. A name
/// like `a>) b.md` fails: its line would point at `a` and could take over another entry.
///
/// ```
/// use memdir::store::names::check_index_representable;
/// assert!(check_index_representable("notes (old).md").is_ok());
/// assert!(check_index_representable("x>) — y.md").is_err());
/// ```
pub fn check_index_representable(file: &str) -> Result<()> {
    for hook in ["", "h"] {
        let entry = IndexEntry {
            title: "t".to_owned(),
            file: file.to_owned(),
            hook: hook.to_owned(),
        };
        check_entry_round_trip(&entry)?;
    }
    Ok(())
}

/// Refuse an index entry whose formatted line does not parse back to the same file.
pub(crate) fn check_entry_round_trip(entry: &IndexEntry) -> Result<()> {
    let line = format_index_entry(entry);
    match parse_index_entry(&line) {
        Some(parsed) if parsed.file == entry.file => Ok(()),
        _ => Err(invalid(
            Code::InvalidMemory,
            &entry.file,
            "an index line cannot name it (it would point at another file)",
        )),
    }
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
