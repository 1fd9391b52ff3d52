//! Windows path helpers with Node's `path.win32` semantics: both `\` and `/` separate, a path may
//! start with a drive (`C:`, `C:\`), a UNC root (`\\server\share\`) or a bare separator (rooted
//! on the current drive); results use `\`.

/// `\` or `/`.
pub(crate) fn is_sep(b: u8) -> bool {
    b == b'\\' || b == b'/'
}

fn is_drive(bytes: &[u8]) -> bool {
    matches!(bytes, [letter, b':', ..] if letter.is_ascii_alphabetic())
}

/// Node's `path.win32.isAbsolute`: a leading separator, or a drive followed by a separator.
///
/// ```
/// use memdir::paths::win32_is_absolute;
/// assert!(win32_is_absolute("C:\\Users\\u"));
/// assert!(win32_is_absolute("C:/Users/u"));
/// assert!(win32_is_absolute("\\\\server\\share"));
/// assert!(win32_is_absolute("\\rooted"));
/// assert!(!win32_is_absolute("C:relative"));
/// assert!(!win32_is_absolute("app\\x"));
/// ```
pub fn win32_is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    match b {
        [first, ..] if is_sep(*first) => true,
        [_, b':', third, ..] => is_drive(b) && is_sep(*third),
        _ => false,
    }
}

/// Where the root of a Windows path ends, its device (`C:` or `\\server\share`, written with
/// `\`) and whether it is absolute. A `\\server\share` with nothing after it is `whole_unc`.
struct Root {
    end: usize,
    device: Option<String>,
    absolute: bool,
    unc: bool,
    whole_unc: bool,
}

fn root_of(path: &str) -> Root {
    let b = path.as_bytes();
    let len = b.len();
    let mut root = Root {
        end: 0,
        device: None,
        absolute: false,
        unc: false,
        whole_unc: false,
    };
    match b {
        [first, second, ..] if is_sep(*first) && is_sep(*second) => {
            root.absolute = true;
            root.end = 1;
            // `\\server\share`: the server, then separators, then the share.
            let mut j = 2;
            while j < len && !b.get(j).copied().is_some_and(is_sep) {
                j += 1;
            }
            if j < len && j != 2 {
                let server = path.get(2..j).unwrap_or("");
                while j < len && b.get(j).copied().is_some_and(is_sep) {
                    j += 1;
                }
                let share_start = j;
                if j < len {
                    while j < len && !b.get(j).copied().is_some_and(is_sep) {
                        j += 1;
                    }
                    let share = path.get(share_start..j).unwrap_or("");
                    root.device = Some(format!("\\\\{server}\\{share}"));
                    root.unc = true;
                    root.end = j;
                    root.whole_unc = j == len;
                }
            }
        }
        [first, ..] if is_sep(*first) => {
            root.absolute = true;
            root.end = 1;
        }
        _ if is_drive(b) => {
            root.device = path.get(..2).map(str::to_owned);
            root.end = 2;
            if b.get(2).copied().is_some_and(is_sep) {
                root.absolute = true;
                root.end = 3;
            }
        }
        _ => {}
    }
    root
}

/// Resolve `.` and `..` among the segments of `rest` (either separator), joined with `\`.
fn normalize_segments(rest: &str, allow_above_root: bool) -> String {
    let mut stack: Vec<&str> = Vec::new();
    for segment in rest.split(['\\', '/']) {
        match segment {
            "" | "." => {}
            ".." => match stack.last() {
                Some(&last) if last != ".." => {
                    stack.pop();
                }
                _ if allow_above_root => stack.push(".."),
                _ => {}
            },
            other => stack.push(other),
        }
    }
    crate::jsstr::join(&stack, "\\")
}

/// Node's `path.win32.normalize`: separators become `\` and collapse, `.` and `..` resolve
/// lexically (never above an absolute root), a trailing separator is kept, the root is kept as
/// written (`C:`, `C:\`, `\\server\share\`, `\`).
///
/// ```
/// use memdir::paths::win32_normalize;
/// assert_eq!(win32_normalize("C:/Users//u/./app/../mem/"), "C:\\Users\\u\\mem\\");
/// assert_eq!(win32_normalize("\\\\server\\share\\a\\..\\b"), "\\\\server\\share\\b");
/// assert_eq!(win32_normalize("C:\\.."), "C:\\");
/// assert_eq!(win32_normalize("a/../.."), "..");
/// assert_eq!(win32_normalize(""), ".");
/// ```
pub fn win32_normalize(path: &str) -> String {
    let b = path.as_bytes();
    let Some(&first) = b.first() else {
        return ".".to_owned();
    };
    if b.len() == 1 {
        return if is_sep(first) {
            "\\".to_owned()
        } else {
            path.to_owned()
        };
    }
    let root = root_of(path);
    if root.whole_unc {
        return format!("{}\\", root.device.unwrap_or_default());
    }
    let rest = path.get(root.end..).unwrap_or("");
    let mut tail = normalize_segments(rest, !root.absolute);
    if tail.is_empty() && !root.absolute {
        tail.push('.');
    }
    if !tail.is_empty() && b.last().copied().is_some_and(is_sep) {
        tail.push('\\');
    }
    match (root.device, root.absolute) {
        (None, true) => format!("\\{tail}"),
        (None, false) => tail,
        (Some(device), true) => format!("{device}\\{tail}"),
        (Some(device), false) => format!("{device}{tail}"),
    }
}

/// Node's `path.win32.join(...segments)`: the non-empty segments joined with `\`, then
/// normalised (a leading `\\` of the first segment is kept as a UNC root).
///
/// ```
/// use memdir::paths::win32_join;
/// assert_eq!(win32_join(&["C:\\Users\\u", ".claude", "projects"]), "C:\\Users\\u\\.claude\\projects");
/// assert_eq!(win32_join(&["\\\\srv\\home", "u"]), "\\\\srv\\home\\u");
/// assert_eq!(win32_join(&["", ""]), ".");
/// ```
pub fn win32_join(segments: &[&str]) -> String {
    let kept: Vec<&str> = segments.iter().filter(|s| !s.is_empty()).copied().collect();
    let Some(first) = kept.first() else {
        return ".".to_owned();
    };
    let mut joined = crate::jsstr::join(&kept, "\\");
    // Node keeps `\\server` only when the first segment itself starts with exactly two
    // separators followed by something else; otherwise a run of leading separators is one.
    let fb = first.as_bytes();
    let mut needs_replace = true;
    let mut slashes = 0;
    if fb.first().copied().is_some_and(is_sep) {
        slashes += 1;
        if fb.get(1).copied().is_some_and(is_sep) {
            slashes += 1;
            if fb.len() > 2 {
                if fb.get(2).copied().is_some_and(is_sep) {
                    slashes += 1;
                } else {
                    needs_replace = false;
                }
            }
        }
    }
    if needs_replace {
        let jb = joined.as_bytes();
        while slashes < jb.len() && jb.get(slashes).copied().is_some_and(is_sep) {
            slashes += 1;
        }
        if slashes >= 2 {
            joined = format!("\\{}", joined.get(slashes..).unwrap_or(""));
        }
    }
    win32_normalize(&joined)
}

/// The root of a normalised Windows path (`C:\`, `\\server\share\`, `\`, `C:`), empty for a
/// relative one.
pub(crate) fn win32_root(path: &str) -> &str {
    let root = root_of(path);
    let end = if root.unc && !root.whole_unc {
        // Past the separator after the device.
        (root.end + 1).min(path.len())
    } else {
        root.end
    };
    path.get(..end).unwrap_or("")
}

/// `path.win32.resolve(base, rel)` without a working directory: `rel` if absolute (a rooted
/// `\x` takes `base`'s drive), else `base\rel`; normalised, no trailing separator except at a
/// root.
///
/// ```
/// use memdir::paths::win32_resolve;
/// assert_eq!(win32_resolve("C:\\repo\\.git\\worktrees\\wt", "..\\.."), "C:\\repo\\.git");
/// assert_eq!(win32_resolve("C:\\x", "D:/abs/"), "D:\\abs");
/// assert_eq!(win32_resolve("C:\\x", "\\top"), "C:\\top");
/// ```
pub fn win32_resolve(base: &str, rel: &str) -> String {
    let joined = if win32_is_absolute(rel) {
        let rb = rel.as_bytes();
        let rooted_only =
            rb.first().copied().is_some_and(is_sep) && !rb.get(1).copied().is_some_and(is_sep);
        if rooted_only && is_drive(base.as_bytes()) {
            win32_normalize(&format!("{}{rel}", base.get(..2).unwrap_or("")))
        } else {
            win32_normalize(rel)
        }
    } else {
        win32_join(&[base, rel])
    };
    strip_trailing(joined)
}

fn strip_trailing(mut path: String) -> String {
    while path.len() > win32_root(&path).len() && path.ends_with('\\') {
        path.pop();
    }
    path
}

/// `path.win32.dirname`, for normalised paths: everything before the last separator, the root
/// kept (`C:\a` → `C:\`, `C:\` → `C:\`).
///
/// ```
/// use memdir::paths::win32_dirname;
/// assert_eq!(win32_dirname("C:\\a\\b.md"), "C:\\a");
/// assert_eq!(win32_dirname("C:\\a"), "C:\\");
/// assert_eq!(win32_dirname("C:\\"), "C:\\");
/// assert_eq!(win32_dirname("\\\\srv\\share\\a"), "\\\\srv\\share\\");
/// ```
pub fn win32_dirname(path: &str) -> String {
    let root = win32_root(path);
    let rest = path.get(root.len()..).unwrap_or("");
    let rest = rest.trim_end_matches(['\\', '/']);
    match rest.rfind(['\\', '/']) {
        Some(at) => format!("{root}{}", rest.get(..at).unwrap_or("")),
        None if root.is_empty() => ".".to_owned(),
        None => root.to_owned(),
    }
}

/// `path.win32.basename`: the last segment, trailing separators ignored, never the root.
///
/// ```
/// use memdir::paths::win32_basename;
/// assert_eq!(win32_basename("C:\\a\\.git"), ".git");
/// assert_eq!(win32_basename("C:\\"), "");
/// ```
pub fn win32_basename(path: &str) -> String {
    let root = win32_root(path);
    let rest = path.get(root.len()..).unwrap_or("");
    let rest = rest.trim_end_matches(['\\', '/']);
    rest.rsplit(['\\', '/']).next().unwrap_or("").to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_matches_node_win32() {
        // Expected values from Node's path.win32.normalize.
        let cases = [
            ("C:", "C:."),
            ("C:\\", "C:\\"),
            ("C:/", "C:\\"),
            ("C:foo\\..\\bar", "C:bar"),
            ("\\\\server\\share", "\\\\server\\share\\"),
            ("\\\\server\\share\\", "\\\\server\\share\\"),
            ("//server/share/x/", "\\\\server\\share\\x\\"),
            ("\\\\server", "\\server"),
            ("/", "\\"),
            ("//", "\\"),
            ("\\..\\a", "\\a"),
            ("a\\b\\", "a\\b\\"),
            ("./", ".\\"),
        ];
        for (input, want) in cases {
            assert_eq!(win32_normalize(input), want, "normalize({input:?})");
        }
    }

    #[test]
    fn join_matches_node_win32() {
        let cases: [(&[&str], &str); 5] = [
            (&["\\\\server", "share"], "\\\\server\\share\\"),
            (&["//server/share", "x"], "\\\\server\\share\\x"),
            (&["\\\\\\a", "b"], "\\a\\b"),
            (&["C:", "x"], "C:\\x"),
            (&["C:\\", "..", "x"], "C:\\x"),
        ];
        for (input, want) in cases {
            assert_eq!(win32_join(input), want, "join({input:?})");
        }
    }

    #[test]
    fn roots() {
        assert_eq!(win32_root("C:\\a"), "C:\\");
        assert_eq!(win32_root("\\\\s\\h\\a"), "\\\\s\\h\\");
        assert_eq!(win32_root("\\a"), "\\");
        assert_eq!(win32_root("a\\b"), "");
        assert_eq!(win32_resolve("C:\\a\\", "."), "C:\\a");
        assert_eq!(win32_resolve("\\\\s\\h\\a", ".."), "\\\\s\\h\\");
    }
}
