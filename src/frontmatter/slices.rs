//! The offsets of [`super::HeadForJs::Slices`] read straight from the bytes, for the header
//! almost every memory file has: `---`, plain ASCII `key: value` lines, `---`. One pass, no
//! line list, no `char` searcher: the size-optimised build leaves those out of line, and they
//! were most of a `parseFrontmatter` call. Anything else (CRLF, quotes, non-ASCII, a blank
//! first line, a `---` line with more on it, a repeated key, a prefix that ends too soon) gives
//! `None`, and the general route answers; where this answers, it answers as that route does
//! (tested on random headers and their prefixes below, and by the fuzz targets through
//! `head_for_js`).

use super::fast::{is_plain_key, is_plain_value};
use super::js_json::{key_pair, DESCRIPTION_BIT, HEADER_KEYS, NAME_BIT, TYPE_BIT};
use crate::types::MemoryType;

/// Up to this many entries; a longer block goes the general way (its repeated-key check sorts).
const MAX_ENTRIES: usize = 16;

/// `[body, header bits, key start, key end, value start, value end, …]` for `text` (the whole
/// file when `complete`, else its start) when it opens with a block of plain ASCII
/// `key: value` lines closed by a `---` line; `None` when the general route must decide.
pub(super) fn plain_head_offsets(text: &str, complete: bool) -> Option<Vec<u32>> {
    head_offsets(text, complete, false)
}

/// [`plain_head_offsets`], also reading one-line double-quoted values without escapes
/// (`key: "a: b"`, the quoting a description with `: ` gets) when `quoted`: their offsets are
/// those of the text between the quotes, which is the value. The header bits do not cover
/// such values (an empty one is not a description): only for the scan's fields
/// ([`super::plain_header`]), not for the JS answer.
pub(super) fn head_offsets(text: &str, complete: bool, quoted: bool) -> Option<Vec<u32>> {
    let bytes = text.as_bytes();
    // `---` and a line break, then a first line that does not start with whitespace (which
    // the delimiter search would skip over).
    let mut at = match bytes {
        [b'-', b'-', b'-', b'\n', next, ..] if next.is_ascii_graphic() => 4,
        _ => return None,
    };
    let mut out = Vec::with_capacity(2 + 4 * 4);
    out.extend([0, 0]);
    let mut fields = 0;
    loop {
        let rest = bytes.get(at..)?;
        let line_len = rest.iter().position(|&b| b == b'\n')?;
        let line = rest.get(..line_len)?;
        if line.starts_with(b"---") {
            // Only a bare `---` closes here; `--- ` and `----` are left to the general route.
            if line.len() != 3 || out.len() == 2 {
                return None;
            }
            let after = at + line_len + 1;
            let body = match bytes.get(after..)? {
                // The general route cannot tell yet whether the body starts after `\r\n`.
                short if short.len() < 2 && !complete => return None,
                [b'\n', ..] => after + 1,
                [b'\r', b'\n', ..] => after + 2,
                _ => after,
            };
            let (body, bits) = (u32::try_from(body).ok()?, fields);
            if let Some(head) = out.get_mut(..2) {
                head.copy_from_slice(&[body, bits]);
            }
            return Some(out);
        }
        if !line.is_empty() {
            if !line.is_ascii() || out.len() >= 2 + 4 * MAX_ENTRIES {
                return None;
            }
            let colon = line.iter().position(|&b| b == b':')?;
            let key = text.get(at..at + colon)?;
            // Over 1,000 bytes YAML no longer takes it as a simple key; `__proto__` goes as
            // JSON (an own property through `JSON.parse`).
            if line.get(colon + 1) != Some(&b' ')
                || key.len() > 1000
                || !is_plain_key(key)
                || key == "__proto__"
            {
                return None;
            }
            let spaces = line
                .get(colon + 1..)?
                .iter()
                .take_while(|&&b| b == b' ')
                .count();
            let (mut value_start, mut value_end) = (at + colon + 1 + spaces, at + line_len);
            let mut value = text.get(value_start..value_end)?;
            if quoted && is_simple_quoted(value) {
                (value_start, value_end) = (value_start + 1, value_end - 1);
                value = text.get(value_start..value_end)?;
            } else if !is_plain_value(value) {
                return None;
            }
            if repeats(text, &out, key) {
                return None;
            }
            fields |= match key {
                "name" => NAME_BIT,
                "description" => DESCRIPTION_BIT,
                "type" if MemoryType::parse(value).is_some() => TYPE_BIT,
                _ => 0,
            };
            let [start, end, value_start, value_end] =
                [at, at + colon, value_start, value_end].map(|n| u32::try_from(n).ok());
            let key_pair = key_pair(key, [start?, end?]);
            out.extend_from_slice(&[key_pair[0], key_pair[1], value_start?, value_end?]);
        }
        at += line_len + 1;
    }
}

/// A double-quoted YAML scalar on one line whose value is the text between its quotes: printable
/// ASCII without `"` or `\` inside, nothing after the closing quote.
fn is_simple_quoted(value: &str) -> bool {
    match value.as_bytes() {
        [b'"', inner @ .., b'"'] => inner
            .iter()
            .all(|&b| (0x20..=0x7E).contains(&b) && b != b'"' && b != b'\\'),
        _ => false,
    }
}

/// Whether `key` is already among the keys of `out` (see [`key_pair`]).
fn repeats(text: &str, out: &[u32], key: &str) -> bool {
    out.get(2..)
        .unwrap_or_default()
        .chunks_exact(4)
        .any(|entry| {
            let seen = match *entry {
                [i, 0, ..] => HEADER_KEYS.get(i as usize).copied(),
                [start, end, ..] => text.get(start as usize..end as usize),
                _ => None,
            };
            seen == Some(key)
        })
}

#[cfg(test)]
mod tests {
    use super::super::js_json::{head_for_js_general, HeadForJs};
    use super::*;

    use crate::test_rng::XorShift as Rng;

    fn below(rng: &mut Rng, n: usize) -> usize {
        (rng.next() % n as u64) as usize
    }

    fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
        items[below(rng, items.len())]
    }

    /// One of `usual` seven times in eight, else one of `odd`.
    fn either<'a>(rng: &mut Rng, usual: &[&'a str], odd: &[&'a str]) -> &'a str {
        if below(rng, 8) == 0 {
            pick(rng, odd)
        } else {
            pick(rng, usual)
        }
    }

    const KEYS: &[&str] = &["name", "description", "type", "a", "_x", "k-2"];
    const ODD_KEYS: &[&str] = &[
        "__proto__",
        "null",
        "True",
        "2k",
        "k k",
        "ké",
        "",
        "-k",
        "name",
    ];
    const VALUES: &[&str] = &[
        "topic 1",
        "a plain description of memory 1 with words",
        "user",
        "feedback",
        "project",
        "reference",
        "User",
        "x-y z",
    ];
    const ODD_VALUES: &[&str] = &[
        "", " x", "x ", "a: b", "a #b", "a#b", "1", "-x", "null", "~", "é", "\"q\"", "'q'", "x\r",
        "x\ty", "[a]", "x:", "---",
    ];
    const SEPARATORS: &[&str] = &[": ", ":  "];
    const ODD_SEPARATORS: &[&str] = &[":", ":\t", " : ", ":\n"];
    const ODD_LINES: &[&str] = &[
        "\n", "\r\n", "---\n", "--- \n", "----\n", "  x: y\n", "# c\n",
    ];
    const OPENINGS: &[&str] = &["---\n"];
    const ODD_OPENINGS: &[&str] = &["---\r\n", "--- \n", "---\n\n", "---\n ", "---", ""];
    const CLOSINGS: &[&str] = &["---\n"];
    const ODD_CLOSINGS: &[&str] = &["---", "---\r\n", "--- \n", "---\t\n", ""];
    const BODIES: &[&str] = &["", "\n", "\nBody\n", "\r\nBody", "Body", "\n\n", "x", "\r"];

    fn random_text(rng: &mut Rng) -> String {
        let mut text = String::from(either(rng, OPENINGS, ODD_OPENINGS));
        // Keys in turn (a repeat only among the odd ones).
        let first = below(rng, KEYS.len());
        for i in 0..below(rng, 6) {
            if below(rng, 10) == 0 {
                text.push_str(pick(rng, ODD_LINES));
                continue;
            }
            let key = KEYS[(first + i) % KEYS.len()];
            text.push_str(either(rng, &[key], ODD_KEYS));
            text.push_str(either(rng, SEPARATORS, ODD_SEPARATORS));
            text.push_str(either(rng, VALUES, ODD_VALUES));
            text.push('\n');
        }
        text.push_str(either(rng, CLOSINGS, ODD_CLOSINGS));
        text.push_str(pick(rng, BODIES));
        text
    }

    #[test]
    fn answers_as_the_general_route_where_it_answers() {
        let mut rng = Rng(0x00DD_BA11_5EED_0017);
        let (mut answered, mut typed, mut cut) = (0, 0, 0);
        let cases = 20_000;
        for _ in 0..cases {
            let text = random_text(&mut rng);
            for end in (0..=text.len()).filter(|&end| text.is_char_boundary(end)) {
                let complete = end == text.len();
                let prefix = &text[..end];
                let Some(offsets) = plain_head_offsets(prefix, complete) else {
                    continue;
                };
                let general = head_for_js_general(prefix, complete);
                assert_eq!(general, HeadForJs::Slices(offsets.clone()), "{prefix:?}");

                answered += usize::from(complete);
                typed += usize::from(complete && offsets.get(1).is_some_and(|b| b & 4 != 0));
                cut += usize::from(!complete);
            }
        }
        // The generator must reach the fast answer often, on whole texts and on prefixes.
        assert!(
            answered > cases / 10,
            "only {answered} whole texts answered"
        );
        assert!(typed > cases / 50, "only {typed} with a memory type");
        assert!(cut > cases / 10, "only {cut} prefixes answered");
    }

    #[test]
    fn the_scans_fields_are_those_of_the_general_parse_where_it_answers() {
        let mut rng = Rng(0x00DD_BA11_5EED_0018);
        let (mut answered, mut quoted) = (0, 0);
        let cases = 20_000;
        for _ in 0..cases {
            let mut text = random_text(&mut rng);
            // Quoted values too: simple ones read in place, others left to the general route.
            if below(&mut rng, 2) == 0 {
                let value = pick(&mut rng, QUOTED);
                text = text.replacen(": ", &format!(": {value}\n_q{}: ", below(&mut rng, 9)), 1);
            }
            for end in (0..=text.len()).filter(|&end| text.is_char_boundary(end)) {
                let complete = end == text.len();
                let prefix = &text[..end];
                let Some(fields) = crate::frontmatter::plain_header(prefix, complete) else {
                    continue;
                };
                let general = crate::frontmatter::parse_frontmatter_head(prefix, complete);
                assert_eq!(Some(fields), general.map(|head| head.header), "{prefix:?}");
                answered += usize::from(complete);
                quoted += usize::from(complete && prefix.contains(": \""));
            }
        }
        assert!(
            answered > cases / 10,
            "only {answered} whole texts answered"
        );
        assert!(quoted > cases / 50, "only {quoted} with a quoted value");
    }

    const QUOTED: &[&str] = &[
        "\"a: b\"",
        "\"\"",
        "\"user\"",
        "\"x # y\"",
        "\" x \"",
        "\"a\\nb\"",
        "\"a\"b\"",
        "\"a\" ",
        "\"a\" # c",
        "\"é\"",
        "\"a",
        "\"'\"",
        "\"\t\"",
    ];

    #[test]
    fn reads_the_usual_header() {
        let text = "---\nname: Role\ndescription: Senior Go dev\ntype: user\n---\n\nBody\n";
        let offsets = plain_head_offsets(text, true).unwrap();
        assert_eq!(offsets[..2], [58, 0b111]);
        let piece = |i: usize| &text[offsets[i] as usize..offsets[i + 1] as usize];
        assert_eq!(offsets[2..4], [0, 0]);
        assert_eq!(offsets[6..8], [1, 0]);
        assert_eq!(offsets[10..12], [2, 0]);
        assert_eq!(
            [piece(4), piece(8), piece(12)],
            ["Role", "Senior Go dev", "user"]
        );
        let offsets = plain_head_offsets("---\nkey: v\nname: n\n---\n", true).unwrap();
        assert_eq!(offsets, [23, 1, 4, 7, 9, 10, 0, 0, 17, 18]);
        // Left to the general route: CRLF, quotes, a repeated key, a prefix too short to tell.
        for text in [
            "---\r\nname: a\r\n---\r\n",
            "---\nname: \"a\"\n---\n",
            "---\na: 1\na: 2\n---\n",
        ] {
            assert_eq!(plain_head_offsets(text, true), None, "{text:?}");
        }
        assert_eq!(plain_head_offsets("---\nname: a\n---\n", false), None);
    }
}
