//! Unicode lower-casing with exactly the results of `char::to_lowercase` and
//! `str::to_lowercase` (final sigma included), from tables a fraction of the size of the
//! standard library's: its conversion table alone is 11.5 KB of the wasm module.
//!
//! The tables below were generated from the standard library's own results (see the
//! `print_tables` test); the tests compare every character against it, so a toolchain with a
//! newer Unicode version shows up as a failing test, not as a silent difference.

/// `c.to_lowercase()`, appended to `out`.
///
/// ```
/// let mut s = String::new();
/// for c in "ÀΣİ!".chars() {
///     memdir::case::push_lowercase(&mut s, c);
/// }
/// assert_eq!(s, "àσi\u{307}!");
/// ```
pub fn push_lowercase(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else if c == '\u{130}' {
        // The one character whose lower case is two characters.
        out.push_str("i\u{307}");
    } else {
        out.push(lower_single(c));
    }
}

/// `s.to_lowercase()`: each character as [`push_lowercase`] maps it, except a capital sigma at
/// the end of a word (preceded by a cased letter, not followed by one, `Case_Ignorable`
/// characters skipped), which becomes `ς`.
///
/// ```
/// use memdir::case::to_lowercase;
/// assert_eq!(to_lowercase("ΟΔΟΣ Straße"), "οδος straße");
/// assert_eq!(to_lowercase("ΣΑΣ"), "σας");
/// ```
pub fn to_lowercase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == 'Σ' {
            let before = s.get(..i).unwrap_or_default().chars().rev();
            let after = s.get(i + 'Σ'.len_utf8()..).unwrap_or_default().chars();
            let word_final = ignorable_then_cased(before) && !ignorable_then_cased(after);
            out.push(if word_final { 'ς' } else { 'σ' });
        } else {
            push_lowercase(&mut out, c);
        }
    }
    out
}

/// True when the first character of `chars` that is not `Case_Ignorable` is `Cased`.
fn ignorable_then_cased(mut chars: impl Iterator<Item = char>) -> bool {
    chars
        .find(|&c| !in_set(&CASE_IGNORABLE, c))
        .is_some_and(|c| in_set(&CASED, c))
}

/// The lower case of a non-ASCII character other than U+0130 (itself when it has none).
fn lower_single(c: char) -> char {
    let u = u32::from(c);
    let index = LOWER_RUNS.partition_point(|&run| run & 0x1F_FFFF <= u);
    let Some(i) = index.checked_sub(1) else {
        return c;
    };
    let (Some(&run), Some(&delta)) = (LOWER_RUNS.get(i), LOWER_OFFSETS.get(i)) else {
        return c;
    };
    let start = run & 0x1F_FFFF;
    let len = (run >> 21) & 0x7F;
    let stride = if (run >> 28) & 1 == 1 { 2 } else { 1 };
    let offset = u - start;
    if offset < len * stride && offset % stride == 0 {
        char::from_u32(u.wrapping_add_signed(delta)).unwrap_or(c)
    } else {
        c
    }
}

/// Whether `c` lies in one of the ranges of `set` (see [`CASE_IGNORABLE`] for the encoding).
fn in_set(set: &[u8], c: char) -> bool {
    let u = u32::from(c);
    let mut bytes = set.iter();
    let mut end = 0u32;
    while let (Some(gap), Some(len)) = (leb128(&mut bytes), leb128(&mut bytes)) {
        let start = end + gap;
        if u < start {
            return false;
        }
        end = start + len;
        if u < end {
            return true;
        }
    }
    false
}

/// The next unsigned LEB128 number of `bytes`.
fn leb128(bytes: &mut std::slice::Iter<'_, u8>) -> Option<u32> {
    let mut value = 0u32;
    let mut shift = 0;
    for &b in bytes.by_ref() {
        value |= u32::from(b & 0x7F) << shift;
        if b < 0x80 {
            return Some(value);
        }
        shift += 7;
    }
    None
}

/// Non-ASCII lower-case mappings as runs, sorted by first character: bits 0..21 the first
/// character, 21..28 the run length, bit 28 set for a stride of 2 (every other character).
const LOWER_RUNS: [u32; 184] = [
    0x02E000C0, 0x00E000D8, 0x13000100, 0x10600132, 0x11000139, 0x12E0014A, 0x00200178, 0x10600179,
    0x00200181, 0x10400182, 0x00200186, 0x00200187, 0x00400189, 0x0020018B, 0x0020018E, 0x0020018F,
    0x00200190, 0x00200191, 0x00200193, 0x00200194, 0x00200196, 0x00200197, 0x00200198, 0x0020019C,
    0x0020019D, 0x0020019F, 0x106001A0, 0x002001A6, 0x002001A7, 0x002001A9, 0x002001AC, 0x002001AE,
    0x002001AF, 0x004001B1, 0x104001B3, 0x002001B7, 0x002001B8, 0x002001BC, 0x002001C4, 0x002001C5,
    0x002001C7, 0x002001C8, 0x002001CA, 0x112001CB, 0x112001DE, 0x002001F1, 0x104001F2, 0x002001F6,
    0x002001F7, 0x128001F8, 0x00200220, 0x11200222, 0x0020023A, 0x0020023B, 0x0020023D, 0x0020023E,
    0x00200241, 0x00200243, 0x00200244, 0x00200245, 0x10A00246, 0x10400370, 0x00200376, 0x0020037F,
    0x00200386, 0x00600388, 0x0020038C, 0x0040038E, 0x02200391, 0x012003A3, 0x002003CF, 0x118003D8,
    0x002003F4, 0x002003F7, 0x002003F9, 0x002003FA, 0x006003FD, 0x02000400, 0x04000410, 0x12200460,
    0x1360048A, 0x002004C0, 0x10E004C1, 0x160004D0, 0x04C00531, 0x04C010A0, 0x002010C7, 0x002010CD,
    0x0A0013A0, 0x00C013F0, 0x00201C89, 0x05601C90, 0x00601CBD, 0x19601E00, 0x00201E9E, 0x16001EA0,
    0x01001F08, 0x00C01F18, 0x01001F28, 0x01001F38, 0x00C01F48, 0x10801F59, 0x01001F68, 0x01001F88,
    0x01001F98, 0x01001FA8, 0x00401FB8, 0x00401FBA, 0x00201FBC, 0x00801FC8, 0x00201FCC, 0x00401FD8,
    0x00401FDA, 0x00401FE8, 0x00401FEA, 0x00201FEC, 0x00401FF8, 0x00401FFA, 0x00201FFC, 0x00202126,
    0x0020212A, 0x0020212B, 0x00202132, 0x02002160, 0x00202183, 0x034024B6, 0x06002C00, 0x00202C60,
    0x00202C62, 0x00202C63, 0x00202C64, 0x10602C67, 0x00202C6D, 0x00202C6E, 0x00202C6F, 0x00202C70,
    0x00202C72, 0x00202C75, 0x00402C7E, 0x16402C80, 0x10402CEB, 0x00202CF2, 0x12E0A640, 0x11C0A680,
    0x10E0A722, 0x13E0A732, 0x1040A779, 0x0020A77D, 0x10A0A77E, 0x0020A78B, 0x0020A78D, 0x1040A790,
    0x1140A796, 0x0020A7AA, 0x0020A7AB, 0x0020A7AC, 0x0020A7AD, 0x0020A7AE, 0x0020A7B0, 0x0020A7B1,
    0x0020A7B2, 0x0020A7B3, 0x1100A7B4, 0x0020A7C4, 0x0020A7C5, 0x0020A7C6, 0x1040A7C7, 0x0020A7CB,
    0x1100A7CC, 0x0020A7DC, 0x0020A7F5, 0x0340FF21, 0x05010400, 0x048104B0, 0x01610570, 0x01E1057C,
    0x00E1058C, 0x00410594, 0x06610C80, 0x02C10D50, 0x040118A0, 0x04016E40, 0x03216EA0, 0x0441E900,
];

/// The offset from each run's characters to their lower case.
const LOWER_OFFSETS: [i32; 184] = [
    32, 32, 1, 1, 1, 1, -121, 1, 210, 1, 206, 1, 205, 1, 79, 202, 203, 1, 205, 207, 211, 209, 1,
    211, 213, 214, 1, 218, 1, 218, 1, 218, 1, 217, 1, 219, 1, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, -97,
    -56, 1, -130, 1, 10795, 1, -163, 10792, 1, -195, 69, 71, 1, 1, 1, 116, 38, 37, 64, 63, 32, 32,
    8, 1, -60, 1, -7, 1, -130, 80, 32, 1, 1, 15, 1, 1, 48, 7264, 7264, 7264, 38864, 8, 1, -3008,
    -3008, 1, -7615, 1, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -74, -9, -86, -9, -8, -100, -8,
    -112, -7, -128, -126, -9, -7517, -8383, -8262, 28, 16, 1, 26, 48, 1, -10743, -3814, -10727, 1,
    -10780, -10749, -10783, -10782, 1, 1, -10815, 1, 1, 1, 1, 1, 1, 1, 1, -35332, 1, 1, -42280, 1,
    1, -42308, -42319, -42315, -42305, -42308, -42258, -42282, -42261, 928, 1, -48, -42307, -35384,
    1, -42343, 1, -42561, 1, 32, 40, 40, 39, 39, 39, 39, 64, 32, 32, 32, 27, 34,
];

/// Unicode `Case_Ignorable`: LEB128 pairs (gap from the previous range's end, length).
const CASE_IGNORABLE: [u8; 987] = [
    39, 1, 6, 1, 11, 1, 35, 1, 1, 1, 71, 1, 4, 1, 1, 1, 4, 1, 2, 2, 247, 3, 192, 1, 4, 2, 4, 1, 9,
    2, 1, 1, 251, 1, 7, 207, 1, 1, 5, 1, 49, 45, 1, 1, 1, 2, 1, 2, 1, 1, 44, 1, 11, 6, 10, 11, 1,
    1, 35, 1, 10, 21, 16, 1, 101, 8, 1, 10, 1, 4, 33, 1, 1, 1, 30, 27, 91, 11, 58, 11, 4, 1, 2, 1,
    24, 24, 43, 3, 44, 1, 7, 2, 5, 9, 41, 58, 55, 1, 1, 1, 4, 8, 4, 1, 3, 7, 10, 2, 13, 1, 15, 1,
    58, 1, 4, 4, 8, 1, 20, 2, 26, 1, 2, 2, 57, 1, 4, 2, 4, 2, 2, 3, 3, 1, 30, 2, 3, 1, 11, 2, 57,
    1, 4, 5, 1, 2, 4, 1, 20, 2, 22, 6, 1, 1, 58, 1, 2, 1, 1, 4, 8, 1, 7, 2, 11, 2, 30, 1, 61, 1,
    12, 1, 50, 1, 3, 1, 55, 1, 1, 3, 5, 3, 1, 4, 7, 2, 11, 2, 29, 1, 58, 1, 2, 1, 6, 1, 5, 2, 20,
    2, 28, 2, 57, 2, 4, 4, 8, 1, 20, 2, 29, 1, 72, 1, 7, 3, 1, 1, 90, 1, 2, 7, 11, 9, 98, 1, 2, 9,
    9, 1, 1, 7, 73, 2, 27, 1, 1, 1, 1, 1, 55, 14, 1, 5, 1, 2, 5, 11, 1, 36, 9, 1, 102, 4, 1, 6, 1,
    2, 2, 2, 25, 2, 4, 3, 16, 4, 13, 1, 2, 2, 6, 1, 15, 1, 94, 1, 224, 4, 3, 178, 7, 3, 29, 2, 30,
    2, 30, 2, 64, 2, 1, 7, 8, 1, 2, 11, 3, 1, 5, 1, 45, 5, 51, 1, 65, 2, 34, 1, 118, 3, 4, 2, 9, 1,
    6, 3, 219, 1, 2, 2, 1, 58, 1, 1, 7, 1, 1, 1, 1, 2, 8, 6, 10, 2, 1, 39, 1, 8, 46, 2, 12, 20, 4,
    48, 1, 1, 5, 1, 1, 5, 1, 40, 9, 12, 2, 32, 4, 2, 2, 1, 3, 56, 1, 1, 2, 3, 1, 1, 3, 58, 8, 2, 2,
    64, 6, 82, 3, 1, 13, 1, 7, 4, 1, 6, 1, 3, 2, 50, 63, 13, 1, 34, 101, 189, 3, 1, 1, 3, 11, 3,
    13, 3, 13, 3, 13, 2, 12, 5, 8, 2, 10, 1, 2, 1, 2, 5, 49, 5, 1, 10, 1, 1, 13, 1, 16, 13, 51, 33,
    139, 23, 2, 113, 3, 125, 1, 15, 1, 96, 32, 47, 1, 213, 3, 1, 36, 4, 3, 5, 5, 1, 93, 6, 93, 3,
    150, 222, 1, 1, 226, 9, 6, 142, 2, 1, 98, 4, 1, 10, 1, 1, 28, 4, 80, 2, 14, 34, 78, 1, 23, 3,
    102, 4, 3, 2, 8, 1, 3, 1, 4, 1, 25, 2, 5, 1, 151, 1, 2, 26, 18, 13, 1, 38, 8, 25, 11, 46, 3,
    48, 1, 2, 4, 2, 2, 17, 1, 21, 2, 66, 6, 2, 2, 2, 2, 12, 1, 8, 1, 35, 1, 11, 1, 51, 1, 1, 3, 2,
    2, 5, 2, 1, 1, 27, 1, 14, 2, 5, 2, 1, 1, 100, 5, 9, 3, 121, 1, 2, 1, 4, 1, 176, 158, 1, 1, 147,
    1, 17, 189, 4, 16, 3, 1, 12, 16, 34, 1, 2, 1, 169, 1, 1, 7, 1, 6, 1, 11, 1, 35, 1, 1, 1, 47, 1,
    45, 2, 67, 1, 21, 3, 129, 4, 1, 226, 1, 1, 149, 1, 5, 133, 8, 6, 1, 42, 1, 9, 198, 4, 3, 1, 2,
    5, 4, 40, 3, 4, 1, 165, 1, 2, 189, 4, 4, 38, 1, 26, 5, 1, 1, 187, 2, 2, 24, 1, 52, 6, 70, 11,
    49, 4, 123, 1, 54, 15, 41, 1, 2, 2, 10, 3, 49, 4, 2, 2, 2, 1, 4, 1, 10, 1, 50, 3, 36, 5, 1, 8,
    62, 1, 12, 2, 52, 9, 10, 4, 2, 1, 95, 3, 2, 1, 1, 2, 6, 1, 2, 1, 157, 1, 1, 3, 8, 21, 2, 57, 2,
    3, 1, 37, 7, 3, 5, 70, 6, 13, 1, 1, 1, 1, 1, 14, 2, 85, 8, 2, 3, 1, 1, 23, 1, 84, 6, 1, 1, 4,
    2, 1, 2, 238, 1, 4, 6, 2, 1, 2, 27, 2, 85, 8, 2, 1, 1, 2, 106, 1, 1, 1, 2, 6, 1, 1, 101, 1, 1,
    1, 2, 4, 1, 5, 131, 2, 9, 1, 2, 128, 2, 2, 1, 1, 4, 1, 144, 1, 4, 2, 2, 4, 1, 32, 10, 40, 6, 2,
    4, 8, 1, 9, 6, 2, 3, 46, 13, 1, 2, 198, 1, 1, 1, 3, 1, 1, 201, 1, 7, 1, 6, 1, 1, 82, 22, 2, 7,
    1, 2, 1, 2, 122, 6, 3, 1, 1, 2, 1, 7, 1, 1, 72, 2, 3, 1, 1, 1, 65, 1, 153, 2, 2, 11, 2, 52, 5,
    5, 1, 1, 1, 23, 1, 213, 41, 17, 6, 15, 200, 89, 12, 3, 3, 192, 19, 5, 59, 7, 9, 4, 252, 3, 3,
    40, 2, 226, 3, 1, 63, 17, 64, 2, 1, 2, 13, 2, 252, 127, 4, 1, 7, 1, 2, 158, 25, 2, 1, 4, 220,
    36, 46, 2, 23, 160, 4, 3, 9, 16, 2, 7, 30, 4, 148, 1, 3, 187, 15, 55, 4, 50, 8, 1, 14, 1, 22,
    5, 1, 15, 208, 10, 7, 1, 17, 2, 7, 1, 2, 1, 5, 5, 62, 33, 1, 160, 1, 14, 240, 2, 1, 61, 4, 251,
    3, 5, 254, 1, 2, 243, 1, 1, 2, 1, 7, 2, 5, 1, 9, 1, 208, 3, 7, 109, 8, 175, 21, 5, 129, 152,
    48, 1, 30, 96, 128, 1, 240, 1,
];

/// Unicode `Cased`, for the characters that are not `Case_Ignorable`: same encoding.
const CASED: [u8; 332] = [
    65, 26, 6, 26, 47, 1, 10, 1, 4, 1, 5, 23, 1, 31, 1, 195, 1, 1, 4, 4, 208, 1, 2, 26, 192, 1, 4,
    2, 2, 3, 3, 1, 1, 6, 1, 1, 3, 1, 1, 1, 20, 1, 83, 1, 139, 1, 8, 166, 1, 1, 38, 9, 41, 151, 22,
    38, 1, 1, 5, 1, 2, 43, 2, 3, 160, 5, 86, 2, 6, 130, 17, 11, 5, 43, 2, 3, 64, 44, 63, 13, 1, 34,
    101, 150, 2, 2, 6, 2, 38, 2, 6, 2, 8, 1, 1, 1, 1, 1, 1, 1, 31, 2, 53, 1, 7, 1, 1, 3, 3, 1, 7,
    3, 4, 2, 6, 4, 13, 5, 3, 1, 7, 133, 2, 1, 4, 1, 2, 10, 1, 1, 3, 5, 6, 1, 1, 1, 1, 1, 1, 4, 1,
    6, 4, 1, 2, 4, 5, 5, 4, 1, 17, 32, 3, 2, 177, 6, 52, 150, 14, 124, 2, 103, 6, 4, 3, 2, 12, 38,
    1, 1, 5, 1, 146, 242, 1, 46, 18, 28, 134, 1, 78, 1, 23, 3, 4, 1, 77, 24, 2, 3, 1, 181, 6, 43,
    5, 9, 7, 80, 192, 158, 1, 7, 12, 5, 137, 8, 26, 6, 26, 165, 9, 80, 96, 36, 4, 36, 116, 11, 1,
    15, 1, 7, 1, 2, 1, 11, 1, 15, 1, 7, 1, 2, 195, 13, 51, 13, 51, 93, 22, 10, 22, 154, 22, 64,
    224, 170, 1, 64, 32, 25, 2, 25, 172, 202, 1, 85, 1, 71, 1, 2, 2, 1, 2, 2, 2, 4, 1, 12, 1, 1, 1,
    7, 1, 65, 1, 4, 2, 8, 1, 7, 1, 28, 1, 4, 1, 5, 1, 1, 3, 7, 1, 212, 2, 2, 25, 1, 25, 1, 31, 1,
    25, 1, 31, 1, 25, 1, 31, 1, 25, 1, 31, 1, 25, 1, 8, 180, 14, 10, 1, 20, 6, 6, 213, 19, 68, 236,
    15, 26, 6, 26, 6, 26,
];

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // std is the oracle these tables are checked against
mod tests {
    use super::*;
    use std::fmt::Write;

    fn all_chars() -> impl Iterator<Item = char> {
        (0..=0x10FFFF).filter_map(char::from_u32)
    }

    #[test]
    fn every_character_lowers_as_std_does() {
        let mut ours = String::new();
        for c in all_chars() {
            ours.clear();
            push_lowercase(&mut ours, c);
            assert!(ours.chars().eq(c.to_lowercase()), "{:X}", u32::from(c));
        }
    }

    #[test]
    fn sigma_around_every_character_lowers_as_std_does() {
        // Every character of the planes with cased or case-ignorable ones, a sample elsewhere
        // (the debug build is slow at this).
        let sample = all_chars().filter(|&c| {
            matches!(u32::from(c), 0..0x20000 | 0xE0000..0xE1000) || u32::from(c) % 61 == 0
        });
        for c in sample {
            for s in [format!("{c}Σ"), format!("A{c}Σ"), format!("AΣ{c}")] {
                assert_eq!(to_lowercase(&s), s.to_lowercase(), "{:X}", u32::from(c));
            }
        }
    }

    #[test]
    fn the_sigma_test_covers_every_range_of_the_sets() {
        // The sigma test checks every character only below U+20000 and in U+E0000..U+E1000;
        // a range of CASED or CASE_IGNORABLE elsewhere would be tested by sampling alone.
        for set in [&CASE_IGNORABLE[..], &CASED[..]] {
            let mut bytes = set.iter();
            let mut end = 0u32;
            let mut ranges = 0;
            while let (Some(gap), Some(len)) = (leb128(&mut bytes), leb128(&mut bytes)) {
                let start = end + gap;
                end = start + len;
                ranges += 1;
                assert!(
                    end <= 0x20000 || (0xE0000..=0xE1000).contains(&start) && end <= 0xE1000,
                    "range {start:X}..{end:X} lies outside the densely tested planes"
                );
            }
            assert!(ranges > 100, "{ranges} ranges decoded");
            assert!(bytes.next().is_none(), "trailing bytes in a set");
        }
    }

    #[test]
    fn mixed_strings_lower_as_std_does() {
        let alphabet: Vec<char> = "aZ ΣσςΑ'.\u{301}\u{2B0}İ\u{10400}ǅ1-\u{AD}ß\u{1E9E}K\u{E0020}"
            .chars()
            .collect();
        let mut rng = crate::test_rng::XorShift(0x2545_F491_4F6C_DD1D);
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(rng.0 % 9) {
                s.push(alphabet[(rng.next() % alphabet.len() as u64) as usize]);
            }
            rng.next();
            assert_eq!(to_lowercase(&s), s.to_lowercase(), "{s:?}");
        }
    }

    /// Regenerates the tables from the standard library (`cargo test --lib case::tests::print_tables
    /// -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn print_tables() {
        let mut runs: Vec<(u32, u32, u32, i64)> = Vec::new();
        for c in all_chars().filter(|c| !c.is_ascii() && *c != '\u{130}') {
            let lower: Vec<char> = c.to_lowercase().collect();
            assert_eq!(lower.len(), 1, "{c}");
            if lower[0] == c {
                continue;
            }
            let (u, d) = (
                u32::from(c),
                i64::from(u32::from(lower[0])) - i64::from(u32::from(c)),
            );
            if let Some(r) = runs.last_mut() {
                if r.3 == d && u == r.0 + r.1 * r.2 {
                    r.1 += 1;
                    continue;
                }
                if r.1 == 1 && r.3 == d && (u - r.0 == 1 || u - r.0 == 2) {
                    (r.1, r.2) = (2, u - r.0);
                    continue;
                }
            }
            runs.push((u, 1, 1, d));
        }
        let packed: Vec<u32> = runs
            .iter()
            .map(|&(start, len, stride, _)| {
                assert!(len < 128 && start < 1 << 21);
                start | len << 21 | u32::from(stride == 2) << 28
            })
            .collect();
        let offsets: Vec<i64> = runs.iter().map(|r| r.3).collect();
        let mut out = format!("const LOWER_RUNS: [u32; {}] = {packed:#X?};\n", runs.len());
        writeln!(
            out,
            "const LOWER_OFFSETS: [i32; {}] = {offsets:?};",
            runs.len()
        )
        .unwrap();
        let sigma_final = |s: String| s.to_lowercase().ends_with('ς');
        let ignorable: Vec<bool> = all_chars()
            .map(|c| sigma_final(format!("A{c}Σ")) && !sigma_final(format!("{c}Σ")))
            .collect();
        let cased: Vec<bool> = all_chars().map(|c| sigma_final(format!("{c}Σ"))).collect();
        for (name, set) in [("CASE_IGNORABLE", ignorable), ("CASED", cased)] {
            let mut bytes = Vec::new();
            let mut push = |mut v: u32| loop {
                let b = (v & 0x7F) as u8;
                v >>= 7;
                if v == 0 {
                    bytes.push(b);
                    break;
                }
                bytes.push(b | 0x80);
            };
            let (mut end, mut start) = (0u32, None);
            for (c, inside) in all_chars().zip(set).chain([('\u{10FFFF}', false)]) {
                match (start, inside) {
                    (None, true) => start = Some(u32::from(c)),
                    (Some(s), false) => {
                        push(s - end);
                        push(u32::from(c) - s);
                        (end, start) = (u32::from(c), None);
                    }
                    _ => {}
                }
            }
            writeln!(out, "const {name}: [u8; {}] = {bytes:?};", bytes.len()).unwrap();
        }
        println!("{out}");
    }
}
