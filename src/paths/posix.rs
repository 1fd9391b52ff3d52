//! POSIX path helpers with Node's `path.posix` semantics (the reference runs on Node/Bun).

/// Join two POSIX path segments (`a` + `b/c` → `a/b/c`), without normalising.
///
/// ```
/// assert_eq!(memdir::paths::join("/m/", "a.md"), "/m/a.md");
/// assert_eq!(memdir::paths::join("/m", "a.md"), "/m/a.md");
/// ```
pub fn join(base: &str, rel: &str) -> String {
    if base.ends_with('/') {
        format!("{base}{rel}")
    } else {
        format!("{base}/{rel}")
    }
}

/// Node's `path.posix.join(...segments)`: the non-empty segments joined with `/`, then
/// [`normalize`]d; `.` when nothing is left.
///
/// ```
/// use memdir::paths::join_all;
/// assert_eq!(join_all(&["/home/u", ".claude", "projects"]), "/home/u/.claude/projects");
/// assert_eq!(join_all(&["", "projects", "x/../y"]), "projects/y");
/// assert_eq!(join_all(&["", ""]), ".");
/// ```
pub fn join_all(segments: &[&str]) -> String {
    let kept: Vec<&str> = segments.iter().filter(|s| !s.is_empty()).copied().collect();
    let joined = crate::jsstr::join(&kept, "/");
    if joined.is_empty() {
        return ".".to_owned();
    }
    normalize(&joined)
}

/// Node's `path.posix.normalize`: collapse repeated `/`, resolve `.` and `..` lexically, keep a
/// trailing `/`; `..` above the root of an absolute path is dropped, above a relative path kept.
///
/// ```
/// use memdir::paths::normalize;
/// assert_eq!(normalize("/a//b/./c/../d/"), "/a/b/d/");
/// assert_eq!(normalize("../x/.."), "..");
/// assert_eq!(normalize("/.."), "/");
/// assert_eq!(normalize(""), ".");
/// ```
pub fn normalize(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let absolute = path.starts_with('/');
    let trailing_separator = path.ends_with('/');
    let mut stack: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => match stack.last() {
                Some(&last) if last != ".." => {
                    stack.pop();
                }
                _ if !absolute => stack.push(".."),
                _ => {}
            },
            other => stack.push(other),
        }
    }
    let body = crate::jsstr::join(&stack, "/");
    if body.is_empty() {
        return match (absolute, trailing_separator) {
            (true, _) => "/".to_owned(),
            (false, true) => "./".to_owned(),
            (false, false) => ".".to_owned(),
        };
    }
    let mut out = String::with_capacity(body.len() + 2);
    if absolute {
        out.push('/');
    }
    out.push_str(&body);
    if trailing_separator {
        out.push('/');
    }
    out
}

/// Node's `path.posix.isAbsolute`: starts with `/`.
///
/// ```
/// assert!(memdir::paths::is_absolute("/a"));
/// assert!(!memdir::paths::is_absolute("~/a"));
/// ```
pub fn is_absolute(path: &str) -> bool {
    path.starts_with('/')
}

/// Node's `path.posix.dirname`: everything before the last non-trailing `/`.
///
/// ```
/// use memdir::paths::dirname;
/// assert_eq!(dirname("/a/b/c.md"), "/a/b");
/// assert_eq!(dirname("/a/b/"), "/a");
/// assert_eq!(dirname("/a"), "/");
/// assert_eq!(dirname("a"), ".");
/// ```
pub fn dirname(path: &str) -> String {
    let bytes = path.as_bytes();
    let Some(&first) = bytes.first() else {
        return ".".to_owned();
    };
    let has_root = first == b'/';
    let mut end = None;
    let mut matched_slash = true;
    for i in (1..bytes.len()).rev() {
        if bytes.get(i) == Some(&b'/') {
            if !matched_slash {
                end = Some(i);
                break;
            }
        } else {
            matched_slash = false;
        }
    }
    match end {
        None if has_root => "/".to_owned(),
        None => ".".to_owned(),
        Some(1) if has_root => "//".to_owned(),
        // `end` indexes an ASCII `/`, so it is a char boundary.
        Some(end) => path.get(..end).unwrap_or(".").to_owned(),
    }
}

/// Node's `path.posix.basename` (without the extension argument): the last segment, trailing
/// separators ignored.
///
/// ```
/// use memdir::paths::basename;
/// assert_eq!(basename("/a/b/c.md"), "c.md");
/// assert_eq!(basename("/a/b/"), "b");
/// assert_eq!(basename("/"), "");
/// ```
pub fn basename(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut start = 0;
    let mut end = None;
    let mut matched_slash = true;
    for i in (0..bytes.len()).rev() {
        if bytes.get(i) == Some(&b'/') {
            if !matched_slash {
                start = i + 1;
                break;
            }
        } else if end.is_none() {
            matched_slash = false;
            end = Some(i + 1);
        }
    }
    match end {
        // Both bounds sit next to ASCII `/` bytes or at the ends: char boundaries.
        Some(end) => path.get(start..end).unwrap_or("").to_owned(),
        None => String::new(),
    }
}

/// Node's `path.posix.resolve(base, rel)` without a working directory: `rel` if absolute, else
/// `base/rel`, normalised, with no trailing `/` (unless the result is the root).
///
/// ```
/// use memdir::paths::resolve;
/// assert_eq!(resolve("/repo/.git/worktrees/wt", "../.."), "/repo/.git");
/// assert_eq!(resolve("/x", "/abs/"), "/abs");
/// ```
pub fn resolve(base: &str, rel: &str) -> String {
    let joined = if is_absolute(rel) {
        normalize(rel)
    } else {
        join_all(&[base, rel])
    };
    strip_trailing_slashes(joined)
}

fn strip_trailing_slashes(mut path: String) -> String {
    while path.len() > 1 && path.ends_with('/') {
        path.pop();
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_matches_node() {
        let cases = [
            ("/", "/"),
            ("//x", "/x"),
            ("./", "./"),
            ("a/..", "."),
            ("a/../", "./"),
            ("../../a", "../../a"),
            ("/a/../../b", "/b"),
            ("a//b///", "a/b/"),
            ("/tmp/mem///", "/tmp/mem/"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input), want, "normalize({input:?})");
        }
    }

    #[test]
    fn dirname_and_basename_edges() {
        assert_eq!(dirname(""), ".");
        assert_eq!(dirname("//a"), "//");
        assert_eq!(dirname("/a/b//c"), "/a/b/");
        assert_eq!(basename(""), "");
        assert_eq!(basename("a"), "a");
        assert_eq!(basename("/ä/ö//"), "ö");
    }
}
