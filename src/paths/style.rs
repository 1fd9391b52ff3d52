//! The two path grammars: POSIX (`/`) and Windows (`\` or `/`, drives, UNC roots), chosen by
//! the host's platform (Node's `process.platform`: `"win32"` is Windows, anything else POSIX).

use super::posix;
use super::win32;

/// Which path grammar a host's paths follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PathStyle {
    /// `/`-separated, rooted at `/` (Linux, macOS, browsers' virtual filesystems).
    #[default]
    Posix,
    /// Windows: `\` and `/` both separate; `C:\`, `\\server\share\` and `\` roots; results use
    /// `\`; names compare without case.
    Win32,
}

impl PathStyle {
    /// The style of a platform name as Node spells it (`process.platform`): `"win32"` is
    /// [`PathStyle::Win32`], anything else (including empty) [`PathStyle::Posix`].
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert_eq!(PathStyle::of_platform("win32"), PathStyle::Win32);
    /// assert_eq!(PathStyle::of_platform("linux"), PathStyle::Posix);
    /// ```
    pub fn of_platform(platform: &str) -> PathStyle {
        if platform == "win32" {
            PathStyle::Win32
        } else {
            PathStyle::Posix
        }
    }

    /// The style a directory is written in: Windows when it starts with a drive (`C:\`, `C:/`)
    /// or a UNC root (`\\server`), or holds a `\` and no `/`; POSIX otherwise.
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert_eq!(PathStyle::of_dir("C:\\Users\\u\\mem\\"), PathStyle::Win32);
    /// assert_eq!(PathStyle::of_dir("C:/Users/u/mem/"), PathStyle::Win32);
    /// assert_eq!(PathStyle::of_dir("/home/u/mem/"), PathStyle::Posix);
    /// ```
    pub fn of_dir(dir: &str) -> PathStyle {
        let b = dir.as_bytes();
        let drive = matches!(b, [l, b':', s, ..] if l.is_ascii_alphabetic() && win32::is_sep(*s));
        let unc = b.starts_with(b"\\\\");
        if drive || unc || (dir.contains('\\') && !dir.contains('/')) {
            PathStyle::Win32
        } else {
            PathStyle::Posix
        }
    }

    /// True for a path that starts with a drive and a separator (`C:\`, `C:/`) or a UNC root
    /// (`\\server`, `//server`): one no POSIX path can be.
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert!(PathStyle::is_windows_rooted("C:/Users/u"));
    /// assert!(!PathStyle::is_windows_rooted("/home/u"));
    /// ```
    pub fn is_windows_rooted(path: &str) -> bool {
        let b = path.as_bytes();
        let drive = matches!(b, [l, b':', s, ..] if l.is_ascii_alphabetic() && win32::is_sep(*s));
        let unc = matches!(b, [b'\\', b'\\', d, ..] if !win32::is_sep(*d));
        drive || unc
    }

    /// The separator results are written with.
    pub fn sep(self) -> char {
        match self {
            PathStyle::Posix => '/',
            PathStyle::Win32 => '\\',
        }
    }

    /// True for a separator of this style (`/`; on Windows `\` too).
    pub fn is_sep(self, c: char) -> bool {
        c == '/' || (self == PathStyle::Win32 && c == '\\')
    }

    /// Node's `path.join` of the style.
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert_eq!(PathStyle::Win32.join(&["C:\\Users\\u", ".claude"]), "C:\\Users\\u\\.claude");
    /// assert_eq!(PathStyle::Posix.join(&["/home/u", ".claude"]), "/home/u/.claude");
    /// ```
    pub fn join(self, segments: &[&str]) -> String {
        match self {
            PathStyle::Posix => posix::join_all(segments),
            PathStyle::Win32 => win32::win32_join(segments),
        }
    }

    /// Node's `path.normalize` of the style.
    pub fn normalize(self, path: &str) -> String {
        match self {
            PathStyle::Posix => posix::normalize(path),
            PathStyle::Win32 => win32::win32_normalize(path),
        }
    }

    /// Node's `path.isAbsolute` of the style.
    pub fn is_absolute(self, path: &str) -> bool {
        match self {
            PathStyle::Posix => posix::is_absolute(path),
            PathStyle::Win32 => win32::win32_is_absolute(path),
        }
    }

    /// `path.resolve(base, rel)` of the style, without a working directory.
    pub fn resolve(self, base: &str, rel: &str) -> String {
        match self {
            PathStyle::Posix => posix::resolve(base, rel),
            PathStyle::Win32 => win32::win32_resolve(base, rel),
        }
    }

    /// `path.dirname` of the style.
    pub fn dirname(self, path: &str) -> String {
        match self {
            PathStyle::Posix => posix::dirname(path),
            PathStyle::Win32 => win32::win32_dirname(path),
        }
    }

    /// `path.basename` of the style.
    pub fn basename(self, path: &str) -> String {
        match self {
            PathStyle::Posix => posix::basename(path),
            PathStyle::Win32 => win32::win32_basename(path),
        }
    }

    /// `path` with exactly one trailing separator of the style (any trailing `/` or `\` of a
    /// Windows path replaced).
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert_eq!(PathStyle::Win32.with_trailing_sep("C:\\m/"), "C:\\m\\");
    /// assert_eq!(PathStyle::Posix.with_trailing_sep("/m"), "/m/");
    /// ```
    pub fn with_trailing_sep(self, path: &str) -> String {
        let trimmed = path.trim_end_matches(|c| self.is_sep(c));
        format!("{trimmed}{}", self.sep())
    }

    /// Whether `path` is `dir` or lies below it, as the filesystem of the style sees names:
    /// separators of the style are equal (`\` = `/` on Windows) and Windows compares ASCII
    /// letters without case (`C:\Users` = `c:\users`). Both are compared as given (normalise
    /// first); `dir` may end with a separator or not; `dir-evil` is not below `dir`.
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert!(PathStyle::Win32.contains("C:\\Mem\\", "c:/mem/team/a.md"));
    /// assert!(!PathStyle::Win32.contains("C:\\mem", "C:\\mem-evil\\a.md"));
    /// assert!(!PathStyle::Posix.contains("/Mem/", "/mem/a.md"));
    /// ```
    pub fn contains(self, dir: &str, path: &str) -> bool {
        let dir = dir.trim_end_matches(|c| self.is_sep(c));
        let mut d = dir.chars();
        let mut p = path.chars();
        loop {
            match (d.next(), p.next()) {
                (None, None) => return true,
                (None, Some(c)) => return self.is_sep(c) || dir.is_empty(),
                (Some(_), None) => return false,
                (Some(a), Some(b)) if self.same_char(a, b) => {}
                _ => return false,
            }
        }
    }

    /// Whether `path` starts with `prefix`, comparing as [`PathStyle::same`] does (a plain
    /// string prefix on POSIX; on Windows `\` = `/` and ASCII case ignored).
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert!(PathStyle::Win32.has_prefix("C:\\m\\team\\", "c:/M/team/a.md"));
    /// assert!(!PathStyle::Posix.has_prefix("/m/team/", "/m/teammate.md"));
    /// ```
    pub fn has_prefix(self, prefix: &str, path: &str) -> bool {
        let mut p = path.chars();
        prefix
            .chars()
            .all(|a| p.next().is_some_and(|b| self.same_char(a, b)))
    }

    /// The root of a path of this style: `/` (or empty for a relative POSIX path); on Windows
    /// `C:\`, `\\server\share\`, `\` or empty.
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert_eq!(PathStyle::Win32.root("C:\\a\\b"), "C:\\");
    /// assert_eq!(PathStyle::Posix.root("/a/b"), "/");
    /// ```
    pub fn root(self, path: &str) -> &str {
        match self {
            PathStyle::Posix if path.starts_with('/') => "/",
            PathStyle::Posix => "",
            PathStyle::Win32 => win32::win32_root(path),
        }
    }

    /// `path` without trailing separators, its root kept whole (`/`, `C:\`).
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert_eq!(PathStyle::Win32.trim_trailing_sep("C:\\m\\"), "C:\\m");
    /// assert_eq!(PathStyle::Win32.trim_trailing_sep("C:\\"), "C:\\");
    /// assert_eq!(PathStyle::Posix.trim_trailing_sep("/"), "/");
    /// ```
    pub fn trim_trailing_sep(self, path: &str) -> String {
        let root = self.root(path);
        let trimmed = path.trim_end_matches(|c| self.is_sep(c));
        if trimmed.len() < root.len() {
            root.to_owned()
        } else {
            trimmed.to_owned()
        }
    }

    /// The parent directory of an absolute path by the style's separators (`/a/b.md` → `/a`,
    /// `C:\m\team/a.md` → `C:\m\team`, `C:\a.md` → `C:\`).
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert_eq!(PathStyle::Win32.parent("C:\\m\\team/a.md"), "C:\\m\\team");
    /// assert_eq!(PathStyle::Win32.parent("C:\\a.md"), "C:\\");
    /// assert_eq!(PathStyle::Posix.parent("/a.md"), "/");
    /// ```
    pub fn parent(self, path: &str) -> String {
        let root = self.root(path);
        let rest = path.get(root.len()..).unwrap_or("");
        match rest.rfind(|c| self.is_sep(c)) {
            Some(at) => format!("{root}{}", rest.get(..at).unwrap_or("")),
            None if root.is_empty() => ".".to_owned(),
            None => root.to_owned(),
        }
    }

    /// How many separators of the style `path` holds.
    pub fn sep_count(self, path: &str) -> usize {
        path.chars().filter(|&c| self.is_sep(c)).count()
    }

    /// Whether two paths name the same thing by [`PathStyle::contains`]'s rules (separators of
    /// the style equal; Windows ignores ASCII case). Neither is normalised here.
    ///
    /// ```
    /// use memdir::paths::PathStyle;
    /// assert!(PathStyle::Win32.same("C:\\Repo\\.git", "c:/repo/.git"));
    /// assert!(!PathStyle::Posix.same("/Repo", "/repo"));
    /// ```
    pub fn same(self, a: &str, b: &str) -> bool {
        let mut a = a.chars();
        let mut b = b.chars();
        loop {
            match (a.next(), b.next()) {
                (None, None) => return true,
                (Some(x), Some(y)) if self.same_char(x, y) => {}
                _ => return false,
            }
        }
    }

    /// Two characters name the same thing in a path of this style.
    fn same_char(self, a: char, b: char) -> bool {
        match self {
            PathStyle::Posix => a == b,
            PathStyle::Win32 => (self.is_sep(a) && self.is_sep(b)) || a.eq_ignore_ascii_case(&b),
        }
    }
}
