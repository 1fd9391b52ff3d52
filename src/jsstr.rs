//! JavaScript string semantics the reference relies on: `trim()` whitespace, UTF-16 lengths and
//! indices, `split("\n")`, `toFixed(1)` rounding, `String(number)`.
// OWNER: core-text helper. Stub signatures; replace bodies.

/// True for the characters JS `String.prototype.trim` removes (ASCII whitespace, U+FEFF, …).
pub fn is_js_whitespace(c: char) -> bool {
    todo!("{c}")
}

/// JS `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    todo!("{s}")
}

/// JS `s.length`: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}
