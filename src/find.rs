//! Substring search for the scans that run over a whole `MEMORY.md` on every write (is this file
//! listed? does the index hold a comment?). `str::find`'s two-way search is slow in the
//! size-optimised wasm build; here one byte of the needle is looked for eight bytes at a time,
//! and only where it occurs is the needle compared.

use crate::jsstr::split_word;

/// The first place at or after `from` where `needle` occurs in `hay`, as `str::find` on
/// `&hay[from..]` would find it (plus `from`). The byte scanned for is the needle's last one that
/// is neither a letter, a digit, `_`, `-` nor a space (in a file name, the `.` of `.md`), as
/// such bytes are rare in an index; each place it occurs costs one comparison of the needle.
/// `None` when `from` is past the end or inside a character.
///
/// ```
/// use memdir::find::find_from;
/// let index = "- [A](a.md) — x\n- [B](user_b.md) — y\n";
/// assert_eq!(find_from(index, "user_b.md", 0), index.find("user_b.md"));
/// assert_eq!(find_from(index, "a.md", 7), None);
/// ```
pub fn find_from(hay: &str, needle: &str, from: usize) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if !hay.is_char_boundary(from) {
        return None;
    }
    if n.is_empty() {
        return Some(from);
    }
    let common = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b' ');
    let anchor = n.iter().rposition(|b| !common(b)).unwrap_or(0);
    let target = n.get(anchor).copied()?;
    // The needle starting `anchor` bytes before `p` (where `target` is), at or after `from`.
    let starts_at = |p: usize| -> Option<usize> {
        let start = p.checked_sub(anchor)?;
        (start >= from && h.get(start..start + n.len()) == Some(n)).then_some(start)
    };
    // A text where the byte is everywhere (hostile, or one long run of it) would cost a
    // comparison of the needle per byte: once the bytes compared pass twice the bytes scanned
    // (plus a start), the two-way search takes over, so no text costs much more than it.
    let two_way = || hay.get(from..)?.find(needle).map(|i| i + from);
    let mut base = from.checked_add(anchor)?;
    let mut rest = h.get(base..)?;
    let mut compared = 0usize;
    while let Some((word, tail)) = split_word(rest) {
        rest = tail;
        // A high bit for each byte of the word equal to `target` (exact: no false positives).
        let x = word ^ (LOW * u64::from(target));
        let mut found = !(((x & !HIGH) + !HIGH) | x) & HIGH;
        while found != 0 {
            if let Some(start) = starts_at(base + found.trailing_zeros() as usize / 8) {
                return Some(start);
            }
            found &= found - 1;
            compared += n.len();
        }
        base += 8;
        if compared > 1024 + 2 * (base - from) {
            return two_way();
        }
    }
    (base..h.len()).find_map(starts_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    #[test]
    fn where_the_search_falls_back_the_answers_stay_the_same() {
        // 1 MiB of dots and a long needle of dots that never matches: one comparison per byte
        // would compare about 250 MB; the two-way search takes over, with the same answers.
        let hay = ".".repeat(1 << 20);
        let needle = format!("{}x", ".".repeat(250));
        assert_eq!(find_from(&hay, &needle, 0), None);
        let found = format!("{hay}{needle}");
        assert_eq!(find_from(&found, &needle, 5), Some(hay.len()));
        // A text of period nine under a needle of the same period: a candidate every nine
        // bytes, each compared for most of the needle's length.
        let period = "aaaaaaaa.".repeat(1 << 14);
        let needle = format!("{}x", &period[..250]);
        assert_eq!(find_from(&period, &needle, 0), None);
        let found = format!("{period}{needle}");
        assert_eq!(find_from(&found, &needle, 3), Some(period.len()));
    }

    #[test]
    fn finds_what_str_find_finds() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut below = |n: usize| (rng.next() % n as u64) as usize;
        // A small alphabet, so needles occur often, overlap and straddle the eight-byte words.
        let alphabet = ["a", "b", ".", "_", "é", "\n", "-", "<!--"];
        let pick = |below: &mut dyn FnMut(usize) -> usize, len: usize| -> String {
            (0..len).map(|_| alphabet[below(alphabet.len())]).collect()
        };
        for _ in 0..20_000 {
            // Up to 400 bytes: long enough for the fall-back to the two-way search to happen.
            let longest = if below(4) == 0 { 400 } else { 40 };
            let hay_len = below(longest);
            let mut hay = pick(&mut below, hay_len);
            if below(3) == 0 {
                // Mostly dots: the needle's anchor byte everywhere.
                hay = hay.replace(['a', 'b', '_'], ".");
            }
            let needle_len = below(5);
            let needle = pick(&mut below, needle_len);
            let from = below(hay.len() + 2);
            let expected = hay
                .get(from..)
                .and_then(|rest| rest.find(needle.as_str()))
                .map(|i| i + from);
            assert_eq!(
                find_from(&hay, &needle, from),
                expected,
                "{hay:?} {needle:?} {from}"
            );
        }
    }
}
