//! The first lines of a file as the scanner sees them: one leading U+FEFF
//! dropped, lines split on `\n`, one trailing `\r` stripped from each, joined with `\n`. Pure.

use crate::frontmatter::{parse_frontmatter_head, plain_header, MemoryFields};

/// The first `max_lines` lines of `text`.
///
/// ```
/// use memdir::store::head::first_lines;
/// assert_eq!(first_lines("\u{feff}a\r\nb\r\r\nc\n", 2), "a\nb\r");
/// assert_eq!(first_lines("a\n", 30), "a\n");
/// ```
pub fn first_lines(text: &str, max_lines: usize) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if max_lines == 0 {
        return String::new();
    }
    // Without a `\r`, the lines joined again are the text up to the last `\n` they need: one
    // copy (a memory's head, read again for the index, is most of the file).
    let end = lines_prefix_len(text.as_bytes(), max_lines).unwrap_or(text.len());
    if let Some(prefix) = text.get(..end).filter(|p| !p.as_bytes().contains(&b'\r')) {
        return prefix.to_owned();
    }
    let mut out = String::new();
    for (i, line) in text.split('\n').take(max_lines).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
    }
    out
}

/// Byte length of the prefix of `bytes` holding its first `max_lines` complete lines (up to and
/// excluding the `max_lines`-th `\n`), or `None` when fewer newlines are present.
///
/// ```
/// use memdir::store::head::lines_prefix_len;
/// assert_eq!(lines_prefix_len(b"a\nb\nc", 2), Some(3));
/// assert_eq!(lines_prefix_len(b"a\nb", 2), None);
/// ```
pub fn lines_prefix_len(bytes: &[u8], max_lines: usize) -> Option<usize> {
    let mut left = max_lines;
    if left == 0 {
        return Some(0);
    }
    if left > bytes.len() {
        return None; // not that many bytes, let alone newlines
    }
    // Eight bytes at a time: a word with no `\n` is skipped whole (the classic test for a zero
    // byte, on the word xor-ed with `\n` in every byte).
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let x = u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or([b'\n'; 8])) ^ (ONES * 10);
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            for (i, &b) in word.iter().enumerate() {
                if b == b'\n' {
                    left -= 1;
                    if left == 0 {
                        return Some(at + i);
                    }
                }
            }
        }
        at += 8;
    }
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b'\n' {
            left -= 1;
            if left == 0 {
                return Some(at + i);
            }
        }
    }
    None
}

/// The first `max_lines` lines of a byte head that may end anywhere (even inside a UTF-8
/// sequence). Bytes after the last needed line are ignored; invalid UTF-8 becomes U+FFFD.
///
/// ```
/// use memdir::store::head::first_lines_of_bytes;
/// assert_eq!(first_lines_of_bytes(b"a\nb\n\xe2\x82", 2), "a\nb");
/// assert_eq!(first_lines_of_bytes(b"x\xffy", 30), "x\u{fffd}y");
/// ```
pub fn first_lines_of_bytes(bytes: &[u8], max_lines: usize) -> String {
    let end = lines_prefix_len(bytes, max_lines).unwrap_or(bytes.len());
    let used = bytes.get(..end).unwrap_or(bytes);
    // Cut before the last line's `\n`, `used` holds the lines and nothing more: without a
    // `\r`, they are its text as it is, less one leading U+FEFF (one pass, one copy).
    let text = used.strip_prefix("\u{feff}".as_bytes()).unwrap_or(used);
    if !text.contains(&b'\r') {
        // Valid UTF-8 (the usual case) is checked by the faster validator, then copied once.
        return match std::str::from_utf8(text) {
            Ok(valid) => valid.to_owned(),
            Err(_) => String::from_utf8_lossy(text).into_owned(),
        };
    }
    first_lines(&String::from_utf8_lossy(used), max_lines)
}

/// The memory fields of the frontmatter in the first `max_lines` lines of a byte head: the
/// `header` of [`crate::parse_frontmatter`] over [`first_lines_of_bytes`], without decoding or
/// copying the body. The lines through the block's likely end are parsed first, as the start of
/// a longer text; only when they cannot tell are all the lines read.
///
/// ```
/// use memdir::store::head::frontmatter_fields;
/// let fields = frontmatter_fields(b"---\r\nname: a\r\ntype: user\r\n---\r\n\r\nbody", 30);
/// assert_eq!(fields.name.as_deref(), Some("a"));
/// assert_eq!(frontmatter_fields(b"---\nname: a\n---\n\nbody\n", 2).name, None); // closes on line 3
/// ```
pub fn frontmatter_fields(bytes: &[u8], max_lines: usize) -> MemoryFields {
    // Lines cut after a `\n` give a prefix of the lines' text (`\n` never sits inside a UTF-8
    // sequence, and each line is normalised on its own): parsed as an incomplete text, their
    // answer, when they have one, is the whole text's.
    if let Some((lines, newlines)) = lines_through_close(bytes) {
        // The usual header, read in place: lines without a `\r` (a header with one is not plain
        // anyway) are their own text, and a plain header has no U+FEFF to drop.
        let cut = if newlines < max_lines {
            lines.len()
        } else {
            lines_prefix_len(lines, max_lines).unwrap_or(lines.len())
        };
        if let Some(text) = lines
            .get(..cut)
            .filter(|text| !text.contains(&b'\r'))
            .and_then(|text| std::str::from_utf8(text).ok())
        {
            if let Some(header) = plain_header(text, false) {
                return header;
            }
        }
        let text = first_lines_of_bytes(lines, max_lines);
        if let Some(head) = parse_frontmatter_head(&text, false) {
            return head.header;
        }
    }
    let text = first_lines_of_bytes(bytes, max_lines);
    parse_frontmatter_head(&text, true)
        .map(|head| head.header)
        .unwrap_or_default()
}

/// The lines of `bytes` through the first line after the first that starts with `---` (where a
/// block usually closes), and as many more as put three bytes after that line's `\n`: enough for
/// the parser to tell whether the block closes there; with the number of `\n` in them. `None`
/// without such a line.
fn lines_through_close(bytes: &[u8]) -> Option<(&[u8], usize)> {
    // At each `\n`: `None` while no later line has started with `---`; then `usize::MAX` until
    // that line's own `\n`, whose position it then holds.
    let mut close_end = None;
    let mut newlines = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'\n' {
            continue;
        }
        newlines += 1;
        match close_end {
            None if bytes.get(i + 1..i + 4) == Some(b"---") => close_end = Some(usize::MAX),
            Some(usize::MAX) => close_end = Some(i),
            Some(end) if i >= end + 3 => return Some((bytes.get(..=i)?, newlines)),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_fields_are_those_of_the_whole_parse() {
        let lines = [
            "name: a\n",
            "name: 'b c'\r\n",
            "description: \"x: y\"\n",
            "description: plain\n",
            "type: user\n",
            "type: team\n",
            "description: |\n  two\n",
            "- z\n",
            "é: ü\n",
            "\n",
            "\r\n",
            "  \n",
            "\u{feff}name: c\n",
            "name: \u{fffd}\n",
            "---x\n",
            "--- \n",
            "---\r\n",
            "---\n",
            "---",
            "\r",
            "word ",
        ];
        let mut rng = crate::test_rng::XorShift(0x5eed_1234_abcd_0002);
        let mut pick = |n: usize| (rng.next() % n as u64) as usize;
        let mut seen_fields = 0;
        for _ in 0..20_000 {
            let mut text = String::new();
            if pick(8) == 0 {
                text.push('\u{feff}');
            }
            if pick(8) != 0 {
                text.push_str(["---\n", "---\r\n", "---  \n", "--- x\n"][pick(4)]);
            }
            for _ in 0..pick(12) {
                text.push_str(lines[pick(lines.len())]);
            }
            if pick(4) != 0 {
                text.push_str(["---\n", "---\r\n", "--- \t\n", "---"][pick(4)]);
            }
            for _ in 0..pick(40) {
                text.push_str(lines[pick(lines.len())]);
            }
            // Long lines now and then, so the first KiB ends inside the block or the body.
            if pick(3) == 0 {
                let at = (pick(text.len() + 1)..=text.len())
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(text.len());
                text.insert_str(at, &"y".repeat(pick(1500)));
            }
            let mut bytes = text.into_bytes();
            // Invalid UTF-8 too, and heads cut anywhere (inside a sequence).
            if pick(8) == 0 {
                bytes.insert(pick(bytes.len() + 1), 0xff);
            }
            bytes.truncate(bytes.len() - pick(bytes.len() / 4 + 1));
            for max in [2, 5, 30] {
                let whole = crate::parse_frontmatter(&first_lines_of_bytes(&bytes, max)).header;
                seen_fields += usize::from(whole != MemoryFields::default());
                assert_eq!(frontmatter_fields(&bytes, max), whole, "{bytes:?} {max}");
            }
        }
        // The fields were there to find in a good share of the cases.
        assert!(seen_fields > 10_000, "{seen_fields}");
    }

    /// Mostly the usual header (plain `key: value` lines), now and then something that makes
    /// it not plain or cuts it short: the in-place route must answer as the whole parse does,
    /// and must be the route taken for a good share of them.
    #[test]
    fn usual_headers_read_in_place_are_those_of_the_whole_parse() {
        let keys = ["name", "description", "type", "tags", "x_y", "k-2"];
        let values = [
            "Role",
            "a plain description, no colon",
            "user",
            "feedback",
            "Team",
            "x y",
        ];
        let odd = [
            "\"q\"", "x\r", "é", "1", "null", "", " x", "a #b", "x:", "[a]", "~", "-x",
        ];
        let mut rng = crate::test_rng::XorShift(0x5eed_1234_abcd_0003);
        let mut pick = |n: usize| (rng.next() % n as u64) as usize;
        let (mut plain, mut cases) = (0, 0);
        for _ in 0..20_000 {
            let mut text = String::from(if pick(8) == 0 {
                ["\u{feff}---\n", "---\r\n", "--- \n"][pick(3)]
            } else {
                "---\n"
            });
            let first = pick(keys.len());
            for i in 0..pick(8) {
                // Keys in turn: a repeat only past six lines.
                text.push_str(keys[(first + i) % keys.len()]);
                text.push_str(if pick(16) == 0 {
                    [":  ", ":", ":\t"][pick(3)]
                } else {
                    ": "
                });
                text.push_str(if pick(16) == 0 {
                    odd[pick(odd.len())]
                } else {
                    values[pick(values.len())]
                });
                text.push_str(if pick(16) == 0 { "\r\n" } else { "\n" });
            }
            text.push_str(if pick(8) == 0 {
                ["---\r\n", "--- \n", "---"][pick(3)]
            } else {
                "---\n"
            });
            for _ in 0..pick(40) {
                text.push_str(["body line\n", "\n", "\r\n", "---\n", "é\n"][pick(5)]);
            }
            let mut bytes = text.into_bytes();
            bytes.truncate(bytes.len() - pick(bytes.len() / 3 + 1));
            for max in [2, 5, 30] {
                let whole = crate::parse_frontmatter(&first_lines_of_bytes(&bytes, max)).header;
                assert_eq!(frontmatter_fields(&bytes, max), whole, "{bytes:?} {max}");
                cases += 1;
                let through = lines_through_close(&bytes);
                if let Some((lines, newlines)) = through {
                    assert_eq!(newlines, lines.iter().filter(|&&b| b == b'\n').count());
                }
                let in_place = through
                    .and_then(|(lines, _)| std::str::from_utf8(lines).ok())
                    .and_then(|lines| plain_header(lines, false));
                plain += usize::from(max == 30 && in_place.is_some());
            }
        }
        assert!(
            plain > cases / 3 / 5,
            "{plain} of {} read in place",
            cases / 3
        );
    }

    #[test]
    fn thirty_lines_of_many() {
        let text: String = (0..100).map(|i| format!("line{i}\r\n")).collect();
        let head = first_lines(&text, 30);
        assert_eq!(head.split('\n').count(), 30);
        assert!(head.ends_with("line29"));
        assert_eq!(first_lines_of_bytes(text.as_bytes(), 30), head);
    }

    /// The line-by-line definition the fast path must agree with.
    fn first_lines_by_line(text: &str, max_lines: usize) -> String {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines: Vec<&str> = text
            .split('\n')
            .take(max_lines)
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        lines.join("\n")
    }

    #[test]
    fn first_lines_matches_its_definition() {
        let pieces = ["a", "\n", "\r", "\r\n", "\u{feff}", "é", "", "xyz"];
        let mut rng = crate::test_rng::XorShift(0x5eed_1234_abcd_0001);
        for _ in 0..20_000 {
            let text: String = (0..rng.next() % 40)
                .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
                .collect();
            for max in [0, 1, 2, 3, 30, usize::MAX] {
                assert_eq!(
                    first_lines(&text, max),
                    first_lines_by_line(&text, max),
                    "{text:?} {max}"
                );
                assert_eq!(
                    first_lines_of_bytes(text.as_bytes(), max),
                    first_lines_by_line(&text, max),
                    "{text:?} {max}"
                );
                assert_eq!(
                    lines_prefix_len(text.as_bytes(), max),
                    text.match_indices('\n')
                        .nth(max.wrapping_sub(1))
                        .map(|(i, _)| i)
                        .or((max == 0).then_some(0)),
                    "{text:?} {max}"
                );
            }
        }
    }

    #[test]
    fn bom_only_once_and_empty() {
        assert_eq!(first_lines("\u{feff}\u{feff}x", 30), "\u{feff}x");
        assert_eq!(first_lines("", 30), "");
        assert_eq!(first_lines_of_bytes(b"", 30), "");
        assert_eq!(lines_prefix_len(b"abc", 0), Some(0));
    }
}
