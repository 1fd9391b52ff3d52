//! `/memories/…` paths of the memory tool, mapped onto the memory directory. Pure.

use crate::error::{Code, Error, Result};
use crate::library_files::{library_file, TEMP_MARK};
use crate::path_key::sanitize_path_key;

/// The root every memory-tool path starts with.
pub const MEMORIES_ROOT: &str = "/memories";

/// Git sync's data folder (`<dir>/.git-sync/<scope>/`, holding the git config): reserved as a
/// first segment, with everything below it.
const GIT_SYNC_DIR: &str = ".git-sync";

/// True when `name` holds the temp-file mark, ignoring ASCII case.
fn has_temp_mark(name: &str) -> bool {
    let mark = TEMP_MARK.as_bytes();
    name.as_bytes()
        .windows(mark.len())
        .any(|w| w.eq_ignore_ascii_case(mark))
}

fn bad(code: Code, path: &str, why: &str) -> Error {
    Error::new(code, format!("The path {path:?} is not allowed: {why}."))
}

/// The path relative to the memory directory (`""` for `/memories` itself) of a tool path.
/// Rules: it starts with `/memories` (then `/` or nothing); no NUL, backslash, URL-encoded or
/// Unicode look-alike traversal; no empty, `.` or `..` segments (one trailing `/` is allowed);
/// no control characters; not one of the library's own lock and journal files, nor a temp file,
/// nor anything in git sync's `.git-sync` folder (all ASCII case-insensitive).
/// The two refusals the reference backend also has carry its texts (`Path must start with
/// /memories, got: …`, `Path … would escape /memories directory`).
///
/// ```
/// use memdir::memory_tool::resolve_tool_path;
/// assert_eq!(resolve_tool_path("/memories").unwrap(), "");
/// assert_eq!(resolve_tool_path("/memories/notes/a.md").unwrap(), "notes/a.md");
/// assert_eq!(resolve_tool_path("/memories/../etc/passwd").unwrap_err().code, memdir::Code::PathEscapes);
/// assert_eq!(resolve_tool_path("/memoriesX/a").unwrap_err().code, memdir::Code::PathEscapes);
/// ```
pub fn resolve_tool_path(path: &str) -> Result<String> {
    let rest = match path.strip_prefix(MEMORIES_ROOT) {
        Some("") | Some("/") => return Ok(String::new()),
        Some(rest) if rest.starts_with('/') => rest.get(1..).unwrap_or(""),
        _ => {
            return Err(Error::new(
                Code::PathEscapes,
                format!("Path must start with /memories, got: {path}"),
            ))
        }
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    sanitize_path_key(rest).map_err(|e| {
        let why = match e.code {
            Code::PathNullByte => "it contains a NUL byte",
            Code::PathUrlEncodedTraversal => "it hides traversal in URL encoding",
            Code::PathUnicodeTraversal => "it hides traversal in Unicode look-alikes",
            Code::PathBackslash => "it contains a backslash",
            _ => "it has an empty segment",
        };
        bad(e.code, path, why)
    })?;
    if rest.chars().any(char::is_control) {
        return Err(bad(
            Code::InvalidInput,
            path,
            "it contains control characters",
        ));
    }
    for (i, segment) in rest.split('/').enumerate() {
        match segment {
            "" => return Err(bad(Code::InvalidInput, path, "it has an empty segment")),
            "." | ".." => {
                return Err(Error::new(
                    Code::PathEscapes,
                    format!("Path {path} would escape /memories directory"),
                ))
            }
            s if is_reserved_name(s) || (i == 0 && s.eq_ignore_ascii_case(GIT_SYNC_DIR)) => {
                return Err(bad(
                    Code::InvalidInput,
                    path,
                    "it names a file the memory library keeps for itself",
                ))
            }
            _ => {}
        }
    }
    Ok(rest.to_owned())
}

/// The tool path of a path relative to the memory directory.
pub fn tool_path(rel: &str) -> String {
    if rel.is_empty() {
        MEMORIES_ROOT.to_owned()
    } else {
        format!("{MEMORIES_ROOT}/{rel}")
    }
}

/// True for the library's own files ([`crate::store::LIBRARY_FILES`], ASCII case ignored, and
/// temp files), which listings leave out and the tool may neither show nor touch.
pub(crate) fn is_reserved_name(name: &str) -> bool {
    library_file(name).is_some() || has_temp_mark(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        let cases = [
            ("/memories/a/../../x", Code::PathEscapes),
            ("/memories/./x", Code::PathEscapes),
            ("/memories/%2e%2e%2fx", Code::PathUrlEncodedTraversal),
            ("/memories/．．／x", Code::PathUnicodeTraversal),
            ("/memories/a\\b", Code::PathBackslash),
            ("/memories/a\0b", Code::PathNullByte),
            ("/memories//etc/passwd", Code::PathAbsolute),
            ("/memories/a//b", Code::InvalidInput),
            ("/memories/a\nb", Code::InvalidInput),
            ("/memories/.consolidate-lock", Code::InvalidInput),
            ("/memories/.MEMDIR.LOCK", Code::InvalidInput),
            ("/memories/.Memdir-Undo.json", Code::InvalidInput),
            ("/memories/a.md.TMP-x", Code::InvalidInput),
            ("/memories/.git-sync", Code::InvalidInput),
            ("/memories/.Git-Sync/private/config", Code::InvalidInput),
            ("/etc/passwd", Code::PathEscapes),
            ("memories/a", Code::PathEscapes),
            ("", Code::PathEscapes),
        ];
        for (path, code) in cases {
            assert_eq!(resolve_tool_path(path).unwrap_err().code, code, "{path:?}");
        }
        assert_eq!(resolve_tool_path("/memories/dir/").unwrap(), "dir");
        // Only the top-level folder is git sync's.
        assert_eq!(
            resolve_tool_path("/memories/notes/.git-sync").unwrap(),
            "notes/.git-sync"
        );
        assert_eq!(tool_path("a/b.md"), "/memories/a/b.md");
        assert_eq!(tool_path(""), "/memories");
    }
}
