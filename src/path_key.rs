//! Team memory keys and paths: the lexical key checks and the symlink-aware containment check.
//!
//! A *key* is a path relative to the team directory (`notes/api.md`), as it arrives from a sync
//! server or a tool call. [`sanitize_path_key`] rejects keys that hide traversal (NUL, URL
//! encoding, Unicode compatibility forms, backslashes, absolute paths). [`validate_team_key`]
//! then resolves the key under the team directory, refuses anything that lands outside it
//! lexically, and walks the host's `realpath`/`lstat` from the deepest existing ancestor so a
//! symlink inside `team/` cannot point a write elsewhere. Every failure has its own
//! [`Code`] and a message quoting the key.
//!
//! ```
//! use memdir::path_key::sanitize_path_key;
//! assert_eq!(sanitize_path_key("a/b.md").unwrap(), "a/b.md");
//! assert_eq!(sanitize_path_key("%2e%2e%2fx").unwrap_err().code, memdir::Code::PathUrlEncodedTraversal);
//! ```

use crate::error::{Code, Error, HostError, Result};
use crate::host::{EntryKind, FileSystem};
use crate::paths::PathStyle;

/// Check a key for traversal hidden from a plain `..` test, in the reference's order: NUL byte,
/// URL-encoded `..` or `/`, Unicode-compatibility `..` `/` `\`, backslash, leading `/`. Returns
/// the key unchanged when it passes. A plain `../x` passes here; [`validate_team_key`] catches
/// it when it resolves the key.
///
/// ```
/// use memdir::{path_key::sanitize_path_key, Code};
/// assert_eq!(sanitize_path_key("a\\b").unwrap_err().code, Code::PathBackslash);
/// assert_eq!(sanitize_path_key("/abs").unwrap_err().message, "Absolute path key: \"/abs\"");
/// assert_eq!(sanitize_path_key("．．／x").unwrap_err().code, Code::PathUnicodeTraversal);
/// ```
pub fn sanitize_path_key(key: &str) -> Result<&str> {
    let fail = |code: Code, what: &str| Err(Error::new(code, format!("{what}: \"{key}\"")));
    if key.contains('\0') {
        return fail(Code::PathNullByte, "Null byte in path key");
    }
    let decoded = decode_uri_component(key);
    if decoded != key && (decoded.contains("..") || decoded.contains('/')) {
        return fail(
            Code::PathUrlEncodedTraversal,
            "URL-encoded traversal in path key",
        );
    }
    if let Some(normalized) = nfkc_traversal_view(key) {
        if ["..", "/", "\\", "\0"]
            .iter()
            .any(|t| normalized.contains(t))
        {
            return fail(
                Code::PathUnicodeTraversal,
                "Unicode-normalized traversal in path key",
            );
        }
    }
    if key.contains('\\') {
        return fail(Code::PathBackslash, "Backslash in path key");
    }
    if key.starts_with('/') {
        return fail(Code::PathAbsolute, "Absolute path key");
    }
    Ok(key)
}

/// JavaScript's `decodeURIComponent`, except that malformed input (a bad `%` escape, escapes
/// that are not valid UTF-8) returns the input itself instead of throwing.
///
/// ```
/// use memdir::path_key::decode_uri_component;
/// assert_eq!(decode_uri_component("a%2Fb%20c"), "a/b c");
/// assert_eq!(decode_uri_component("%C3%A9"), "é");
/// assert_eq!(decode_uri_component("100%"), "100%");
/// assert_eq!(decode_uri_component("%FF"), "%FF");
/// ```
pub fn decode_uri_component(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b != b'%' {
            out.push(b);
            i += 1;
            continue;
        }
        let hex = |j: usize| bytes.get(j).and_then(|&h| (h as char).to_digit(16));
        match (hex(i + 1), hex(i + 2)) {
            (Some(hi), Some(lo)) => {
                // Two hex digits make one byte: hi, lo < 16.
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            _ => return input.to_owned(),
        }
    }
    // Escapes decode to UTF-8 octets; raw characters are copied whole. A sequence that is not
    // valid UTF-8 (an overlong form, a surrogate, a dangling lead byte) is a URIError in JS.
    String::from_utf8(out).unwrap_or_else(|_| input.to_owned())
}

/// The NFKC compatibility mappings that produce `.`, `/` or `\`.
///
/// NFKC replaces "compatibility" characters with their plain equivalents; for path keys the
/// only ones that matter are those whose mapping contains a separator or a dot, since they
/// could turn into `../` after some later layer normalises. Derived from the Unicode
/// decomposition data (`<compat>`, `<wide>`, `<small>` and `<square>` mappings whose result
/// contains U+002E, U+002F or U+005C; 38 code points with the range below, checked against
/// Node's `normalize("NFKC")` over every code point); nothing in Unicode maps to NUL. The twenty
/// `DIGIT … FULL STOP` characters U+2488..U+249B (`⒈` → `1.` … `⒛` → `20.`) are a range,
/// handled in [`nfkc_traversal_view`].
const NFKC_TRAVERSAL_MAP: [(char, &str); 18] = [
    ('\u{2024}', "."),    // ONE DOT LEADER
    ('\u{2025}', ".."),   // TWO DOT LEADER
    ('\u{2026}', "..."),  // HORIZONTAL ELLIPSIS
    ('\u{FE19}', "..."),  // PRESENTATION FORM FOR VERTICAL HORIZONTAL ELLIPSIS
    ('\u{FE30}', ".."),   // PRESENTATION FORM FOR VERTICAL TWO DOT LEADER
    ('\u{FE52}', "."),    // SMALL FULL STOP
    ('\u{FF0E}', "."),    // FULLWIDTH FULL STOP
    ('\u{1F100}', "0."),  // DIGIT ZERO FULL STOP
    ('\u{33C2}', "a.m."), // SQUARE AM
    ('\u{33C7}', "Co."),  // SQUARE CO
    ('\u{33D8}', "p.m."), // SQUARE PM
    ('\u{2100}', "a/c"),  // ACCOUNT OF
    ('\u{2101}', "a/s"),  // ADDRESSED TO THE SUBJECT
    ('\u{2105}', "c/o"),  // CARE OF
    ('\u{2106}', "c/u"),  // CADA UNA
    ('\u{FF0F}', "/"),    // FULLWIDTH SOLIDUS
    ('\u{FF3C}', "\\"),   // FULLWIDTH REVERSE SOLIDUS
    ('\u{FE68}', "\\"),   // SMALL REVERSE SOLIDUS
];

/// The key as NFKC would rewrite its traversal-relevant characters, or `None` when it has none
/// of them (so NFKC leaves every `.`, `/` and `\` of the key as it is).
///
/// The reference compares the whole `key.normalize("NFKC")` with the key; without Unicode
/// tables we apply only [`NFKC_TRAVERSAL_MAP`] (plus U+2488..U+249B, `⒈`..`⒛` → `1.`..`20.`).
/// The result is the same for every key where normalisation creates a `..`, `/` or `\`. The
/// one difference: the reference also rejects a key that already contains `/` or `..` and
/// some unrelated compatibility character (`a/ﬁ.md`); we accept it, since NFKC adds no
/// traversal there.
fn nfkc_traversal_view(key: &str) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        if let Some((_, mapped)) = NFKC_TRAVERSAL_MAP.iter().find(|(from, _)| *from == c) {
            out.push_str(mapped);
            changed = true;
        } else if ('\u{2488}'..='\u{249B}').contains(&c) {
            out.push_str(&format!("{}.", u32::from(c) - 0x2487));
            changed = true;
        } else {
            out.push(c);
        }
    }
    changed.then_some(out)
}

/// The team directory as the containment prefix: normalised, ending with one `/`.
fn team_prefix(team_dir: &str) -> String {
    let style = PathStyle::of_dir(team_dir);
    style.with_trailing_sep(&style.normalize(team_dir))
}

/// The team directory without trailing separators (the root stays `/`).
fn team_root(team_dir: &str) -> String {
    PathStyle::of_dir(team_dir).trim_trailing_sep(&team_prefix(team_dir))
}

/// True when `path` lies lexically inside `team_dir` (reference `isTeamMemPath`: `..` resolved,
/// no symlinks followed).
///
/// ```
/// use memdir::path_key::is_team_path;
/// assert!(is_team_path("/m/team/", "/m/team/a.md"));
/// assert!(!is_team_path("/m/team/", "/m/team/../a.md"));
/// assert!(!is_team_path("/m/team", "/m/teammate.md"));
/// ```
pub fn is_team_path(team_dir: &str, path: &str) -> bool {
    let style = PathStyle::of_dir(team_dir);
    style.has_prefix(&team_prefix(team_dir), &style.normalize(path))
}

/// Validate a key from a sync server or a caller and return the absolute path it names inside
/// `team_dir` (lexically resolved — not the realpath).
///
/// Runs [`sanitize_path_key`], refuses a key that resolves outside the directory
/// ([`Code::PathEscapes`]; `""` and `"."` too, since they name the directory itself), then
/// resolves the deepest existing ancestor through the host's `realpath` and refuses a path
/// that a symlink leads out of ([`Code::PathSymlinkEscape`]), crosses a dangling symlink
/// ([`Code::PathDanglingSymlink`]) or a symlink loop ([`Code::PathSymlinkLoop`]), or that the
/// host cannot verify ([`Code::PathUnverifiable`]). A host without `realpath` gets the lexical
/// check only.
///
/// ```
/// use memdir::{future::block_on, path_key::validate_team_key, Code, MemFs};
/// let fs = MemFs::new();
/// fs.insert_file("/etc/passwd", "root");
/// fs.symlink("/etc", "/m/team/out");
/// assert_eq!(block_on(validate_team_key(&fs, "/m/team/", "a/b.md")).unwrap(), "/m/team/a/b.md");
/// let err = block_on(validate_team_key(&fs, "/m/team/", "out/passwd")).unwrap_err();
/// assert_eq!(err.code, Code::PathSymlinkEscape);
/// let err = block_on(validate_team_key(&fs, "/m/team/", "../x")).unwrap_err();
/// assert_eq!(err.message, "Key escapes team memory directory: \"../x\"");
/// ```
pub async fn validate_team_key<F: FileSystem>(fs: &F, team_dir: &str, key: &str) -> Result<String> {
    sanitize_path_key(key)?;
    let prefix = team_prefix(team_dir);
    let resolved = resolve_under(&prefix, key);
    if !PathStyle::of_dir(team_dir).has_prefix(&prefix, &resolved) {
        return Err(Error::new(
            Code::PathEscapes,
            format!("Key escapes team memory directory: \"{key}\""),
        ));
    }
    let real = realpath_deepest_existing(fs, &resolved).await?;
    if !is_real_path_within(fs, &real, team_dir).await {
        return Err(Error::new(
            Code::PathSymlinkEscape,
            format!("Key escapes team memory directory via symlink: \"{key}\""),
        ));
    }
    Ok(resolved)
}

/// Validate an absolute (or directory-relative) path a write is about to go to: no NUL,
/// lexically inside `team_dir`, and no symlink leading out. Returns the resolved path.
///
/// ```
/// use memdir::{future::block_on, path_key::validate_team_write_path, Code, MemFs};
/// let fs = MemFs::new();
/// let err = block_on(validate_team_write_path(&fs, "/m/team/", "/m/team/../x.md")).unwrap_err();
/// assert_eq!(err.code, Code::PathEscapes);
/// assert_eq!(err.message, "Path escapes team memory directory: \"/m/team/../x.md\"");
/// ```
pub async fn validate_team_write_path<F: FileSystem>(
    fs: &F,
    team_dir: &str,
    path: &str,
) -> Result<String> {
    if path.contains('\0') {
        return Err(Error::new(
            Code::PathNullByte,
            format!("Null byte in path: \"{path}\""),
        ));
    }
    let prefix = team_prefix(team_dir);
    let resolved = resolve_under(&prefix, path);
    if !PathStyle::of_dir(team_dir).has_prefix(&prefix, &resolved) {
        return Err(Error::new(
            Code::PathEscapes,
            format!("Path escapes team memory directory: \"{path}\""),
        ));
    }
    let real = realpath_deepest_existing(fs, &resolved).await?;
    if !is_real_path_within(fs, &real, team_dir).await {
        return Err(Error::new(
            Code::PathSymlinkEscape,
            format!("Path escapes team memory directory via symlink: \"{path}\""),
        ));
    }
    Ok(resolved)
}

/// Node's `resolve(base, p)` for an absolute `base`: normalised, no trailing `/`.
fn resolve_under(base: &str, path: &str) -> String {
    PathStyle::of_dir(base).resolve(base, path)
}

fn host_code(e: &HostError) -> &str {
    e.code.as_deref().unwrap_or("UNKNOWN")
}

/// Longest absolute path [`realpath_deepest_existing`] verifies, in bytes.
pub const MAX_VERIFIED_PATH_BYTES: usize = 4096;
/// Deepest absolute path [`realpath_deepest_existing`] verifies, in levels (`/` separators).
pub const MAX_VERIFIED_PATH_DEPTH: usize = 64;

/// Resolve symlinks in the deepest existing ancestor of the absolute path `abs` through the
/// host, and re-attach the segments that do not exist yet.
///
/// Walking up from `abs`: `realpath` succeeds → done; `ENOENT` → if `lstat` says the entry is
/// itself a symlink, its target is missing ([`Code::PathDanglingSymlink`]), otherwise go up;
/// `ELOOP` → [`Code::PathSymlinkLoop`]; `ENOTDIR`, `ENAMETOOLONG` → go up; any other error →
/// [`Code::PathUnverifiable`] (fail closed). Reaching `/` returns `abs` unchanged, and so does
/// a host without `realpath`.
///
/// The walk costs one host call per missing level, each over the whole path, so a path longer
/// than [`MAX_VERIFIED_PATH_BYTES`] or deeper than [`MAX_VERIFIED_PATH_DEPTH`] levels is refused
/// with [`Code::PathUnverifiable`] before any call (a hostile team key of 8 KB of `a/` would
/// otherwise take seconds). Both are far beyond what a real memory path needs (Linux's own
/// `PATH_MAX` is 4,096 bytes).
///
/// ```
/// use memdir::{future::block_on, path_key::realpath_deepest_existing, Code, MemFs};
/// let deep = format!("/m/{}x.md", "a/".repeat(100));
/// let err = block_on(realpath_deepest_existing(&MemFs::new(), &deep)).unwrap_err();
/// assert_eq!(err.code, Code::PathUnverifiable);
/// ```
///
/// ```
/// use memdir::{future::block_on, path_key::realpath_deepest_existing, MemFs};
/// let fs = MemFs::new();
/// fs.insert_file("/real/x.md", "");
/// fs.symlink("/real", "/m/link");
/// assert_eq!(block_on(realpath_deepest_existing(&fs, "/m/link/new/y.md")).unwrap(), "/real/new/y.md");
/// ```
pub async fn realpath_deepest_existing<F: FileSystem>(fs: &F, abs: &str) -> Result<String> {
    if !fs.capabilities().realpath {
        return Ok(abs.to_owned());
    }
    let style = PathStyle::of_dir(abs);
    if abs.len() > MAX_VERIFIED_PATH_BYTES || style.sep_count(abs) > MAX_VERIFIED_PATH_DEPTH {
        return Err(Error::new(
            Code::PathUnverifiable,
            format!(
                "Cannot verify path containment: the path is longer than {MAX_VERIFIED_PATH_BYTES} \
                 bytes or deeper than {MAX_VERIFIED_PATH_DEPTH} levels"
            ),
        ));
    }
    let mut tail: Vec<String> = Vec::new();
    let mut current = abs.to_owned();
    loop {
        let parent = style.dirname(&current);
        if parent == current {
            return Ok(abs.to_owned());
        }
        match fs.realpath(&current).await {
            Ok(real) => {
                let mut out = real;
                for segment in tail.iter().rev() {
                    out = style.join(&[&out, segment]);
                }
                return Ok(out);
            }
            Err(e) if e.has_code("ENOENT") => {
                if let Ok(stat) = fs.lstat(&current).await {
                    if stat.kind == EntryKind::Symlink {
                        return Err(Error::new(
                            Code::PathDanglingSymlink,
                            format!(
                                "Dangling symlink detected (target does not exist): \"{current}\""
                            ),
                        )
                        .with_cause(e));
                    }
                }
            }
            Err(e) if e.has_code("ELOOP") => {
                return Err(Error::new(
                    Code::PathSymlinkLoop,
                    format!("Symlink loop detected in path: \"{current}\""),
                )
                .with_cause(e));
            }
            Err(e) if e.has_code("ENOTDIR") || e.has_code("ENAMETOOLONG") => {}
            Err(e) => {
                let message = format!(
                    "Cannot verify path containment ({}): \"{current}\"",
                    host_code(&e)
                );
                return Err(Error::new(Code::PathUnverifiable, message).with_cause(e));
            }
        }
        tail.push(style.basename(&current));
        current = parent;
    }
}

/// True when the real path `real` is `team_dir` or inside it, comparing against the team
/// directory's own realpath. A team directory that does not exist yet (`ENOENT`, `ENOTDIR`)
/// cannot be escaped through, so the answer is true; any other host error answers false.
///
/// ```
/// use memdir::{future::block_on, path_key::is_real_path_within, MemFs};
/// let fs = MemFs::new();
/// fs.insert_file("/m/team/a.md", "");
/// assert!(block_on(is_real_path_within(&fs, "/m/team/a.md", "/m/team/")));
/// assert!(!block_on(is_real_path_within(&fs, "/m/teammate", "/m/team/")));
/// ```
pub async fn is_real_path_within<F: FileSystem>(fs: &F, real: &str, team_dir: &str) -> bool {
    let style = PathStyle::of_dir(team_dir);
    if !fs.capabilities().realpath {
        return is_team_path(team_dir, real)
            || style.same(&style.normalize(real), &team_root(team_dir));
    }
    let real_team = match fs.realpath(&team_root(team_dir)).await {
        Ok(path) => path,
        Err(e) if e.has_code("ENOENT") || e.has_code("ENOTDIR") => return true,
        Err(_) => return false,
    };
    style.contains(&real_team, real)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn reference_key_vectors() {
        assert_eq!(sanitize_path_key("a/b.md").unwrap(), "a/b.md");
        assert_eq!(sanitize_path_key("../x").unwrap(), "../x");
        let cases = [
            ("a\0b", Code::PathNullByte, "Null byte in path key"),
            (
                "%2e%2e%2fx",
                Code::PathUrlEncodedTraversal,
                "URL-encoded traversal in path key",
            ),
            (
                "a%2Fb",
                Code::PathUrlEncodedTraversal,
                "URL-encoded traversal in path key",
            ),
            (
                "．．／x",
                Code::PathUnicodeTraversal,
                "Unicode-normalized traversal in path key",
            ),
            (
                "\u{2025}/x",
                Code::PathUnicodeTraversal,
                "Unicode-normalized traversal in path key",
            ),
            (
                "a\u{FF3C}b",
                Code::PathUnicodeTraversal,
                "Unicode-normalized traversal in path key",
            ),
            ("a\\b", Code::PathBackslash, "Backslash in path key"),
            ("/abs", Code::PathAbsolute, "Absolute path key"),
        ];
        for (key, code, what) in cases {
            let err = sanitize_path_key(key).unwrap_err();
            assert_eq!(err.code, code, "{key:?}");
            assert_eq!(err.message, format!("{what}: \"{key}\""));
        }
    }

    #[test]
    fn harmless_encodings_and_compat_characters_pass() {
        // Decodes to something without traversal, or malformed: fine.
        assert!(sanitize_path_key("a%20b.md").is_ok());
        assert!(sanitize_path_key("%zz..").is_ok());
        // A compatibility character whose mapping adds no traversal.
        assert!(sanitize_path_key("notes\u{2024}md").is_ok());
        assert!(sanitize_path_key("\u{2488}").is_ok());
        assert!(sanitize_path_key("\u{2488}\u{2024}").is_err());
        assert_eq!(nfkc_traversal_view("\u{249B}").as_deref(), Some("20."));
    }

    #[test]
    fn decode_rejects_invalid_utf8_escapes() {
        assert_eq!(decode_uri_component("%C0%AF"), "%C0%AF"); // overlong `/`
        assert_eq!(decode_uri_component("%ED%A0%80"), "%ED%A0%80"); // surrogate
        assert_eq!(decode_uri_component("%e2%80%a4"), "\u{2024}");
        assert_eq!(decode_uri_component("é%2F"), "é/");
    }
}
