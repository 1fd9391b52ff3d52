//! Project slugs: `sanitizePath` and its `djb2` hash.

/// Slugs longer than this many characters are cut and suffixed with a hash.
pub const MAX_SANITIZED_LENGTH: usize = 200;

/// The `djb2` variant the reference uses: starts from **0**, `h = h * 31 + unit` over UTF-16
/// code units, wrapping in signed 32 bits.
///
/// ```
/// assert_eq!(memdir::paths::djb2("abc"), 96354);
/// assert_eq!(memdir::paths::djb2(""), 0);
/// ```
pub fn djb2(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit))
    })
}

/// `n.toString(36)` for a non-negative integer.
pub(crate) fn to_base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        // `n % 36 < 36`, so the index is always in range.
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    out.into_iter().map(char::from).collect()
}

/// The project slug: every UTF-16 code unit that is not an ASCII letter or digit
/// becomes `-` (so a character outside the BMP becomes `--`); a slug longer than 200 characters
/// keeps its first 200 and gets `-` plus `Math.abs(djb2(name))` in base 36 (the Node form).
///
/// ```
/// use memdir::sanitize_path;
/// assert_eq!(sanitize_path("/Users/foo/my-project"), "-Users-foo-my-project");
/// assert_eq!(sanitize_path("C:\\Users\\foo\\my project"), "C--Users-foo-my-project");
/// ```
pub fn sanitize_path(name: &str) -> String {
    let mut slug = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                slug.push('-');
            }
        }
    }
    if slug.len() <= MAX_SANITIZED_LENGTH {
        return slug;
    }
    // The slug is ASCII, so byte 200 is a char boundary.
    crate::jsstr::truncate_ascii(&mut slug, MAX_SANITIZED_LENGTH);
    slug.push('-');
    slug.push_str(&to_base36(i64::from(djb2(name)).unsigned_abs()));
    slug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base36_edges() {
        assert_eq!(to_base36(0), "0");
        assert_eq!(to_base36(35), "z");
        assert_eq!(to_base36(36), "10");
        // Math.abs(-2147483648).toString(36) in JS.
        assert_eq!(to_base36(i64::from(i32::MIN).unsigned_abs()), "zik0zk");
    }

    #[test]
    fn djb2_wraps_like_js() {
        // (h << 5) - h + c | 0 over "hello world" computed in JS: 1794106052.
        assert_eq!(djb2("hello world"), 1_794_106_052);
    }
}
