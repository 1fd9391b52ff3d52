//! JavaScript string semantics the reference relies on: `trim()` whitespace, UTF-16 lengths and
//! indices, `split("\n")`, `toFixed(1)` rounding, `String(number)`.
//!
//! Rust's own helpers differ in small ways that change results: `str::trim` keeps U+FEFF,
//! `str::lines` drops `\r` and the last empty line, `{:.1}` rounds ties to even. Everything here
//! follows the ECMAScript definitions instead.

/// True for the characters JS `String.prototype.trim` removes: ECMAScript `WhiteSpace` and
/// `LineTerminator` (the same set as a JS regex `\s`).
///
/// ```
/// use memdir::jsstr::is_js_whitespace;
/// assert!(is_js_whitespace('\u{FEFF}'));
/// assert!(is_js_whitespace('\u{00A0}'));
/// assert!(!is_js_whitespace('\u{0085}'));
/// ```
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'..='\u{000D}'
            | ' '
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// True for the ECMAScript `LineTerminator`s, the characters a JS regex `.` does not match.
///
/// ```
/// use memdir::jsstr::is_js_line_terminator;
/// assert!(is_js_line_terminator('\r'));
/// assert!(!is_js_line_terminator('\t'));
/// ```
pub fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JS `s.trim()`.
///
/// ```
/// use memdir::jsstr::js_trim;
/// assert_eq!(js_trim("\u{FEFF} index \u{3000}\n"), "index");
/// ```
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// JS `s.trimStart()`.
///
/// ```
/// use memdir::jsstr::js_trim_start;
/// assert_eq!(js_trim_start("\u{00A0} a "), "a ");
/// ```
pub fn js_trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_whitespace)
}

/// JS `s.trimEnd()`.
///
/// ```
/// use memdir::jsstr::js_trim_end;
/// assert_eq!(js_trim_end(" a \u{2028}"), " a");
/// ```
pub fn js_trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// JS `s.length`: UTF-16 code units.
///
/// ```
/// use memdir::jsstr::utf16_len;
/// assert_eq!(utf16_len("a€😀"), 4);
/// ```
pub fn utf16_len(s: &str) -> usize {
    units_and_newlines(s.as_bytes()).0
}

/// JS `s.split("\n").length`: one more than the number of `\n`.
///
/// ```
/// use memdir::jsstr::js_line_count;
/// assert_eq!(js_line_count(""), 1);
/// assert_eq!(js_line_count("a\r\nb\n"), 3);
/// ```
pub fn js_line_count(s: &str) -> usize {
    count_newlines(s.as_bytes()) + 1
}

/// Number of `\n` bytes.
pub(crate) fn count_newlines(bytes: &[u8]) -> usize {
    units_and_newlines(bytes).1
}

const LOW_BITS: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Eight bytes as one little-endian word (`0` for a short slice, which never happens).
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8]) -> u64 {
    <[u8; 8]>::try_from(bytes).map_or(0, u64::from_le_bytes)
}

/// The first eight bytes of `bytes` as one little-endian word, and the bytes after them; `None`
/// when fewer are left. A slice pattern: no call in the loops that use it, where the
/// size-optimised build leaves `chunks_exact`'s iterator and range indexing out of line.
#[inline(always)]
pub(crate) fn split_word(bytes: &[u8]) -> Option<(u64, &[u8])> {
    match bytes {
        [a, b, c, d, e, f, g, h, rest @ ..] => {
            Some((u64::from_le_bytes([*a, *b, *c, *d, *e, *f, *g, *h]), rest))
        }
        _ => None,
    }
}

/// The continuation bytes (`0b10xx_xxxx`) of `word`, as bit 7 of each.
#[inline(always)]
fn word_continuations(word: u64) -> u64 {
    // Bit 7 of each byte of `word << k` is bit `7 - k` of the same byte.
    word & !(word << 1) & HIGH_BITS
}

/// The four-byte leads (`0xF0..`, a surrogate pair in UTF-16) of `word`, as bit 7 of each.
#[inline(always)]
fn word_four_byte_leads(word: u64) -> u64 {
    word & (word << 1) & (word << 2) & (word << 3) & HIGH_BITS
}

/// The UTF-16 units taken by the characters that *start* in `word` (eight bytes of UTF-8): one
/// per non-continuation byte, one more per four-byte lead.
#[inline(always)]
fn word_units(word: u64) -> usize {
    if word & HIGH_BITS == 0 {
        return 8;
    }
    8 - word_continuations(word).count_ones() as usize
        + word_four_byte_leads(word).count_ones() as usize
}

/// The UTF-16 units of one byte of UTF-8 as [`word_units`] counts them.
#[inline(always)]
fn byte_units(b: u8) -> usize {
    usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0)
}

/// The `\n` bytes of `word`, as bit 7 of each such byte (exact: no carry crosses a byte).
#[inline(always)]
fn word_newlines(word: u64) -> u64 {
    let x = word ^ (LOW_BITS * u64::from(b'\n'));
    !(((x & !HIGH_BITS) + !HIGH_BITS) | x) & HIGH_BITS
}

/// UTF-16 units and `\n` count of UTF-8 `bytes` in one pass, eight bytes at a time (plain
/// 64-bit arithmetic: fast in wasm32 without SIMD and at `opt-level = "z"`, where byte loops do
/// not vectorise). Units are the bytes less the continuation bytes plus the four-byte leads.
pub(crate) fn units_and_newlines(bytes: &[u8]) -> (usize, usize) {
    let mut less = 0usize;
    let mut more = 0usize;
    let mut newlines = 0usize;
    let mut rest = bytes;
    while let Some((word, tail)) = split_word(rest) {
        newlines += word_newlines(word).count_ones() as usize;
        if word & HIGH_BITS != 0 {
            less += word_continuations(word).count_ones() as usize;
            more += word_four_byte_leads(word).count_ones() as usize;
        }
        rest = tail;
    }
    let mut units = bytes.len() - rest.len() - less + more;
    for &b in rest {
        units += byte_units(b);
        newlines += usize::from(b == b'\n');
    }
    (units, newlines)
}

/// [`units_and_newlines`] of `s` and, from the same pass, [`utf16_to_byte_index`] of `at`:
/// `(units, newlines, byte index)`. Whole words are walked while they fit below `at`, the rest
/// counted eight bytes at a time.
pub(crate) fn units_newlines_and_index(s: &str, at: usize) -> (usize, usize, usize) {
    let bytes = s.as_bytes();
    if at >= bytes.len() {
        let (units, newlines) = units_and_newlines(bytes);
        return (units, newlines, bytes.len());
    }
    let mut rest = bytes;
    let mut seen = 0usize;
    let mut newlines = 0usize;
    while let Some((word, tail)) = split_word(rest) {
        let next = seen + word_units(word);
        if next > at {
            break;
        }
        newlines += word_newlines(word).count_ones() as usize;
        seen = next;
        rest = tail;
    }
    let index = bytes.len() - rest.len() + index_within(rest, seen, at);
    // `rest` may start inside a character: its continuation bytes count nothing.
    let (units, more_newlines) = units_and_newlines(rest);
    (seen + units, newlines + more_newlines, index)
}

/// In `rest`, whose earlier characters took `seen` units, the index of the first character
/// that does not fit within `units` (only a character's first byte counts, so it is a
/// character's start); `rest.len()` when all fit.
fn index_within(rest: &[u8], mut seen: usize, units: usize) -> usize {
    for (i, &b) in rest.iter().enumerate() {
        let next = seen + byte_units(b);
        if next > units {
            return i;
        }
        seen = next;
    }
    rest.len()
}

/// The byte index of the `n`-th (1-based) `\n` in `bytes`, or `None` when there are fewer.
pub(crate) fn nth_newline(bytes: &[u8], n: usize) -> Option<usize> {
    let mut remaining = n;
    if remaining == 0 {
        return None;
    }
    let mut rest = bytes;
    while let Some((word, tail)) = split_word(rest) {
        let mut found = word_newlines(word);
        let count = found.count_ones() as usize;
        if count >= remaining {
            for _ in 1..remaining {
                found &= found - 1;
            }
            let pos = bytes.len() - rest.len();
            return Some(pos + found.trailing_zeros() as usize / 8);
        }
        remaining -= count;
        rest = tail;
    }
    let pos = bytes.len() - rest.len();
    for (i, &b) in rest.iter().enumerate() {
        if b == b'\n' {
            remaining -= 1;
            if remaining == 0 {
                return Some(pos + i);
            }
        }
    }
    None
}

/// The byte index in `s` of UTF-16 index `units`, floored to a char boundary: a position inside
/// a surrogate pair maps to the start of that character, and indices past the end to `s.len()`.
///
/// ```
/// use memdir::jsstr::utf16_to_byte_index;
/// assert_eq!(utf16_to_byte_index("a😀b", 1), 1);
/// assert_eq!(utf16_to_byte_index("a😀b", 2), 1); // inside the pair
/// assert_eq!(utf16_to_byte_index("a😀b", 3), 5);
/// assert_eq!(utf16_to_byte_index("a😀b", 99), 6);
/// ```
pub fn utf16_to_byte_index(s: &str, units: usize) -> usize {
    if units >= s.len() {
        // UTF-16 never takes more units than UTF-8 takes bytes: the whole string fits.
        return s.len();
    }
    // Whole words while their characters fit (a word may end inside a character: the bytes
    // of its rest are continuation bytes, which count nothing), then byte by byte.
    let bytes = s.as_bytes();
    let mut rest = bytes;
    let mut seen = 0usize;
    while let Some((word, tail)) = split_word(rest) {
        let next = seen + word_units(word);
        if next > units {
            break;
        }
        seen = next;
        rest = tail;
    }
    bytes.len() - rest.len() + index_within(rest, seen, units)
}

/// The UTF-16 index of byte index `byte` in `s` (floored to a char boundary, clamped to the end).
///
/// ```
/// use memdir::jsstr::byte_to_utf16_index;
/// assert_eq!(byte_to_utf16_index("a😀b", 5), 3);
/// assert_eq!(byte_to_utf16_index("a😀b", 3), 1); // inside the emoji
/// ```
pub fn byte_to_utf16_index(s: &str, byte: usize) -> usize {
    let mut end = byte.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).map_or(0, utf16_len)
}

/// JS `s.split("\n")`: `\r` stays on its line, a trailing newline yields a final empty line, and
/// `""` yields one empty line.
///
/// ```
/// use memdir::jsstr::js_split_newline;
/// let lines: Vec<&str> = js_split_newline("a\r\nb\n").collect();
/// assert_eq!(lines, ["a\r", "b", ""]);
/// assert_eq!(js_split_newline("").count(), 1);
/// ```
pub fn js_split_newline(s: &str) -> std::str::Split<'_, char> {
    s.split('\n')
}

/// `s.truncate(len)` where `len` is known to be a char boundary (an ASCII cut), without the
/// panic path of `String::truncate`: a `len` that is not a boundary or past the end leaves `s`.
pub(crate) fn truncate_ascii(s: &mut String, len: usize) {
    if s.is_char_boundary(len) {
        s.truncate(len);
    }
}

/// JS `items.join(sep)`: the items with `sep` between them (`""` for none).
///
/// Used instead of std's `[S]::join`, which is instantiated per element type with about 1 KB of
/// wasm each; this loop is a fraction of that.
///
/// ```
/// use memdir::jsstr::join;
/// assert_eq!(join(&["a", "b", "c"], ", "), "a, b, c");
/// assert_eq!(join(&[String::from("x")], "/"), "x");
/// assert_eq!(join::<&str>(&[], ","), "");
/// ```
pub fn join<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    let len = items.iter().map(|s| s.as_ref().len()).sum::<usize>()
        + sep.len() * items.len().saturating_sub(1);
    let mut out = String::with_capacity(len);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(item.as_ref());
    }
    out
}

/// JS `x.toFixed(1)`: rounds the exact binary value, ties away from zero (`25.25` → `"25.3"`,
/// where Rust's `{:.1}` gives `"25.2"`). Values of magnitude `1e21` or more print as
/// [`js_number_to_string`] does.
///
/// ```
/// use memdir::jsstr::to_fixed_1;
/// assert_eq!(to_fixed_1(25.25), "25.3");
/// assert_eq!(to_fixed_1(0.05), "0.1"); // 0.05 is slightly above the tie
/// assert_eq!(to_fixed_1(0.15), "0.1"); // 0.15 is slightly below it
/// assert_eq!(to_fixed_1(-0.04), "-0.0");
/// ```
pub fn to_fixed_1(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return js_number_to_string(x);
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (mantissa, exponent) = mantissa_exponent(x);
    // |x| = mantissa · 2^exponent exactly. All in u64: 128-bit division would link
    // compiler-builtins' `u128_div_rem` into the wasm module.
    if exponent >= 0 {
        // An integer (x ≥ 2^52, so nothing after the point) below 1e21 < 2^70: the exponent is
        // at most 17, and base-10⁹ limbs of mantissa · 2^exponent stay within u64.
        const BASE: u64 = 1_000_000_000;
        let factor = 1u64 << exponent;
        let low = (mantissa % BASE) * factor; // < 10⁹ · 2^17
        let high = (mantissa / BASE) * factor + low / BASE; // < 2^53 / 10⁹ · 2^17 + 2^17
        let (d0, d1, d2) = (low % BASE, high % BASE, high / BASE);
        return if d2 > 0 {
            format!("{sign}{d2}{d1:09}{d0:09}.0")
        } else {
            format!("{sign}{d1}{d0:09}.0")
        };
    }
    // `tenths` = round_half_up(x · 10); mantissa · 10 < 2^57.
    let scaled = mantissa * 10;
    let shift = exponent.unsigned_abs();
    let tenths = if shift >= 64 {
        0 // scaled < 2^57, below half a unit
    } else {
        let quotient = scaled >> shift;
        let remainder = scaled & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        quotient + u64::from(remainder >= half)
    };
    format!("{sign}{}.{}", tenths / 10, tenths % 10)
}

/// JS `String(x)` for a number: shortest round-trip digits, integers without `.0`, exponent form
/// from `1e21` up and below `1e-6`, `NaN`, `Infinity`, and `-0` → `"0"`.
///
/// ```
/// use memdir::jsstr::js_number_to_string;
/// assert_eq!(js_number_to_string(42.0), "42");
/// assert_eq!(js_number_to_string(0.1 + 0.2), "0.30000000000000004");
/// assert_eq!(js_number_to_string(1e21), "1e+21");
/// assert_eq!(js_number_to_string(1.5e-7), "1.5e-7");
/// assert_eq!(js_number_to_string(-0.0), "0");
/// ```
pub fn js_number_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (digits, exponent) = shortest_digits(x.abs());
    let digits = even_on_exact_tie(digits, exponent, x.abs());
    let k = digits.len() as i64;
    // Value = 0.digits × 10^n in the terms of the ECMAScript algorithm.
    let n = exponent + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int_part, frac_part) = digits.split_at(n as usize);
        format!("{int_part}.{frac_part}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat(n.unsigned_abs() as usize))
    } else {
        let exp_sign = if n - 1 < 0 { '-' } else { '+' };
        let exp_abs = (n - 1).unsigned_abs();
        match digits.split_at(1) {
            (first, "") => format!("{first}e{exp_sign}{exp_abs}"),
            (first, rest) => format!("{first}.{rest}e{exp_sign}{exp_abs}"),
        }
    };
    format!("{sign}{body}")
}

/// The shortest digits that round-trip to `x` (positive, finite), closest to it, and the
/// decimal exponent of the first one: `x ≈ d.ddd × 10^exponent`.
///
/// Rust's `{}` prints those digits in positional form (`"0.00015"`, `"120"`, `"1e21"` in full).
/// It is taken apart here rather than `{:e}` used: serde's error messages already link the
/// `{}` code, so the exponent-form formatting need not be linked too.
fn shortest_digits(x: f64) -> (String, i64) {
    let text = x.to_string();
    let (int_part, frac_part) = text.split_once('.').unwrap_or((&text, ""));
    let all = format!("{int_part}{frac_part}");
    let significant = all.trim_start_matches('0');
    let digits = significant.trim_end_matches('0');
    let trailing = (significant.len() - digits.len()) as i64;
    // x = digits × 10^(trailing − frac_len); the first digit sits k − 1 places higher.
    let last_place = trailing - frac_part.len() as i64;
    (digits.to_owned(), last_place + digits.len() as i64 - 1)
}

/// ECMAScript picks, among the shortest digit strings that round-trip, the one closest to the
/// value and, on an exact tie, the even one; Rust's shortest formatting resolves that tie
/// upwards. When a neighbour of the last digit also round-trips and the value lies exactly
/// halfway, take the even neighbour. `x` is positive and finite.
fn even_on_exact_tie(digits: String, exponent: i64, x: f64) -> String {
    let Some(last) = digits.bytes().last().map(|b| b - b'0') else {
        return digits;
    };
    if last % 2 == 0 {
        return digits;
    }
    let prefix = digits.get(..digits.len() - 1).unwrap_or("");
    for (neighbour, low) in [(last - 1, last - 1), (last + 1, last)] {
        if neighbour > 9 {
            continue;
        }
        let candidate = format!("{prefix}{neighbour}");
        let round_trips = format!("{candidate}e{}", exponent - prefix.len() as i64)
            .parse::<f64>()
            .is_ok_and(|parsed| parsed == x);
        // Exact decimal expansion of x (a double has fewer than 1100 significant digits).
        if round_trips && exact_significant_digits(x) == format!("{prefix}{low}5") {
            return candidate;
        }
    }
    digits
}

/// `|x| = mantissa · 2^exponent` exactly, for a finite `x` (subnormals included).
fn mantissa_exponent(x: f64) -> (u64, i64) {
    let bits = x.abs().to_bits();
    let exponent_bits = (bits >> 52) & 0x7FF;
    let fraction = bits & ((1u64 << 52) - 1);
    if exponent_bits == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), exponent_bits as i64 - 1075)
    }
}

/// All significant digits of the exact decimal value of `x` (positive, finite), without
/// trailing zeros.
///
/// `x = m · 2^e` exactly; for `e < 0` that is `m · 5^-e / 10^-e`, so the digits are those of
/// the integer `m · 5^-e` (or `m · 2^e` for `e ≥ 0`). A small base-10⁹ bignum computes them
/// without pulling in the precision-formatting machinery of `{:.N}`.
fn exact_significant_digits(x: f64) -> String {
    let (mantissa, exponent) = mantissa_exponent(x);
    const BASE: u64 = 1_000_000_000;
    // Little-endian limbs in base 10⁹ (the mantissa is below 2^53 < 10^18: two limbs).
    let mut limbs: Vec<u32> = vec![(mantissa % BASE) as u32, (mantissa / BASE) as u32];
    // Multiply by 2^e or 5^-e in steps that keep each limb product within a u64.
    // |exponent| ≤ 1074: the count fits a u32.
    let mut count = exponent.unsigned_abs() as u32;
    let (factor, step) = if exponent >= 0 {
        (2u64, 2u64.pow(29))
    } else {
        (5u64, 5u64.pow(12))
    };
    let per_step = if factor == 2 { 29 } else { 12 };
    while count > 0 {
        let n = count.min(per_step);
        let multiplier = if n == per_step { step } else { factor.pow(n) };
        count -= n;
        let mut carry = 0u64;
        for limb in &mut limbs {
            let product = u64::from(*limb) * multiplier + carry;
            *limb = (product % BASE) as u32;
            carry = product / BASE;
        }
        while carry > 0 {
            limbs.push((carry % BASE) as u32);
            carry /= BASE;
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut digits = String::with_capacity(limbs.len() * 9);
    for (i, limb) in limbs.iter().rev().enumerate() {
        let mut chunk = [b'0'; 9];
        let mut rest = *limb;
        for slot in chunk.iter_mut().rev() {
            *slot = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        // The most significant limb is written without its leading zeros.
        let skip = if i == 0 {
            chunk.iter().take_while(|&&d| d == b'0').count().min(8)
        } else {
            0
        };
        digits.extend(chunk.iter().skip(skip).map(|&d| char::from(d)));
    }
    digits.trim_end_matches('0').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_set_is_the_ecmascript_one() {
        let trimmed: Vec<char> = (0u32..=0x3000)
            .chain([0xFEFF])
            .filter_map(char::from_u32)
            .filter(|c| is_js_whitespace(*c))
            .collect();
        let mut expected: Vec<char> = "\t\n\u{B}\u{C}\r \u{A0}\u{1680}".chars().collect();
        expected.extend((0x2000..=0x200A).filter_map(char::from_u32));
        expected.extend([
            '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}', '\u{FEFF}',
        ]);
        assert_eq!(trimmed, expected);
        assert!(!is_js_whitespace('\u{180E}'));
        assert!(!is_js_whitespace('\u{200B}'));
    }

    #[test]
    fn trims_like_js() {
        assert_eq!(js_trim("\u{FEFF}\u{A0}x y\u{2029}\u{B}\u{C}"), "x y");
        assert_eq!(js_trim("  "), "");
        assert_eq!(js_trim_start("\u{205F}a\u{205F}"), "a\u{205F}");
        assert_eq!(js_trim_end("\u{205F}a\u{205F}"), "\u{205F}a");
    }

    #[test]
    fn one_pass_counts_and_index_match_the_separate_ones() {
        let pieces = [
            "a", "bcdefgh", "\n", "é", "日本", "😀", " ", "\r\n", "xyz\n",
        ];
        let mut state = 0x5EED_0017_u64;
        for _ in 0..3000 {
            let mut s = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for k in 0..(state % 40) {
                s.push_str(pieces[((state >> (k % 50)) % pieces.len() as u64) as usize]);
            }
            let units = utf16_len(&s);
            for at in [
                0,
                1,
                7,
                8,
                9,
                units / 3,
                units / 2,
                units.saturating_sub(1),
                units,
                units + 1,
                s.len(),
            ] {
                let expected = (
                    units,
                    count_newlines(s.as_bytes()),
                    utf16_to_byte_index(&s, at),
                );
                assert_eq!(units_newlines_and_index(&s, at), expected, "{s:?} at {at}");
            }
        }
    }

    #[test]
    fn utf16_lengths_and_indices() {
        for s in ["", "abc", "é", "日本語", "😀", "a😀b€", "\u{FFFF}\u{10000}"] {
            assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s:?}");
        }
        let s = "日😀x";
        assert_eq!(utf16_to_byte_index(s, 0), 0);
        assert_eq!(utf16_to_byte_index(s, 1), 3);
        assert_eq!(utf16_to_byte_index(s, 2), 3);
        assert_eq!(utf16_to_byte_index(s, 3), 7);
        assert_eq!(utf16_to_byte_index(s, 4), 8);
        assert_eq!(byte_to_utf16_index(s, 8), 4);
        assert_eq!(byte_to_utf16_index(s, 100), 4);
        assert_eq!(byte_to_utf16_index(s, 2), 0);
    }

    #[test]
    fn to_fixed_rounds_exact_binary_values() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "0.0"),
            (1.0, "1.0"),
            (24.4140625, "24.4"),
            (25.25, "25.3"),
            (-25.25, "-25.3"),
            (0.25, "0.3"),
            (0.35, "0.3"), // 0.34999999999999997779…
            (0.45, "0.5"), // 0.45000000000000001110…
            (1.05, "1.1"), // 1.0500000000000000444…
            (1.15, "1.1"), // 1.1499999999999999111…
            (1023.96, "1024.0"),
            (5e-324, "0.0"),
            (123456789012345680000.0, "123456789012345683968.0"),
            (1e20, "100000000000000000000.0"),
            (-18446744073709551616.0, "-18446744073709551616.0"),
            (1e21, "1e+21"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
        ];
        for (x, expected) in cases {
            assert_eq!(to_fixed_1(x), expected, "{x}");
        }
    }

    /// The earlier 128-bit form of [`to_fixed_1`], kept as the reference.
    fn to_fixed_1_u128(x: f64) -> String {
        let sign = if x < 0.0 { "-" } else { "" };
        let (mantissa, exponent) = mantissa_exponent(x);
        let scaled = u128::from(mantissa) * 10;
        let tenths: u128 = if exponent >= 0 {
            scaled << exponent
        } else {
            let shift = exponent.unsigned_abs();
            if shift >= 127 {
                0
            } else {
                let remainder = scaled & ((1u128 << shift) - 1);
                (scaled >> shift) + u128::from(remainder >= 1u128 << (shift - 1))
            }
        };
        format!("{sign}{}.{}", tenths / 10, tenths % 10)
    }

    #[test]
    fn to_fixed_matches_128_bit_arithmetic() {
        let mut samples = vec![
            4503599627370496.0,
            9007199254740993.0,
            999999999999999900000.0,
        ];
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for i in 0..200_000 {
            let state = rng.next();
            samples.push(match i % 3 {
                0 => f64::from_bits(state),
                // Every binary exponent from 2^-70 to 2^70.
                1 => f64::from_bits(state >> 12 | ((state % 141 + 953) << 52)),
                _ => (state % 100_000_000) as f64 / 10f64.powi((state >> 40) as i32 % 12),
            });
        }
        for x in samples {
            if x.is_finite() && x.abs() < 1e21 {
                assert_eq!(to_fixed_1(x), to_fixed_1_u128(x), "{x:e}");
            }
        }
    }

    #[test]
    fn exact_digits_match_precision_formatting() {
        let reference = |x: f64| {
            let exact = format!("{x:.1100e}");
            let mantissa = exact.split('e').next().unwrap().to_owned();
            let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
            digits.trim_end_matches('0').to_owned()
        };
        let mut samples = vec![
            5e-324,
            1e-310,
            2.2250738585072014e-308,
            0.1,
            0.5,
            1.0,
            3.0,
            1e9,
            1e18,
            123456789012345680000.0,
            9007199254740993.0,
            f64::MAX,
            12_926_474_572_764.0 + 13.0 / 16.0,
        ];
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..300 {
            let state = rng.next();
            let x = f64::from_bits(state >> 1);
            if x.is_finite() && x > 0.0 {
                samples.push(x);
            }
        }
        for x in samples {
            assert_eq!(exact_significant_digits(x), reference(x), "{x:e}");
        }
        assert_eq!(
            exact_significant_digits(0.1),
            "1000000000000000055511151231257827021181583404541015625"
        );
        assert_eq!(exact_significant_digits(1e9), "1");
    }

    #[test]
    fn shortest_digits_match_exponent_formatting() {
        let reference = |x: f64| {
            let scientific = format!("{x:e}");
            let (mantissa, exponent) = scientific.split_once('e').unwrap();
            let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
            (digits, exponent.parse::<i64>().unwrap())
        };
        let mut samples = vec![
            5e-324,
            1e-310,
            0.1,
            0.5,
            1.0,
            3.0,
            10.0,
            120.0,
            1e-5,
            1e-7,
            1.5e-7,
            0.0001,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            123456789.0,
            9007199254740993.0,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        let mut rng = crate::test_rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for i in 0..100_000 {
            let state = rng.next();
            let x = if i % 2 == 0 {
                f64::from_bits(state >> 1)
            } else {
                // Short decimals and integers, where trailing zeros live.
                (state % 100_000_000) as f64 / 10f64.powi((state >> 40) as i32 % 12)
            };
            if x.is_finite() && x > 0.0 {
                samples.push(x);
            }
        }
        for x in samples {
            assert_eq!(shortest_digits(x), reference(x), "{x:e}");
        }
    }

    #[test]
    fn number_to_string_matches_js() {
        let cases = [
            (1.0, "1"),
            (-1.5, "-1.5"),
            (100.0, "100"),
            (123456789.0, "123456789"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.2345e22, "1.2345e+22"),
            (0.000001, "0.000001"),
            (0.0000012, "0.0000012"),
            (1e-7, "1e-7"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::NEG_INFINITY, "-Infinity"),
            (31.0, "31"),
            (1000.0, "1000"),
            (0.5, "0.5"),
            // Exactly halfway between two shortest candidates: JS takes the even digit.
            (12_926_474_572_764.0 + 13.0 / 16.0, "12926474572764.812"),
            (9_977_033_899_136.0 + 5.0 / 16.0, "9977033899136.312"),
        ];
        for (x, expected) in cases {
            assert_eq!(js_number_to_string(x), expected, "{x}");
        }
    }
}
