//! The fast path: a block made only of `key: value` lines whose values YAML would read as the
//! very same plain strings, or as one-line double-quoted (any of YAML's escapes) or
//! single-quoted strings, is turned into a mapping without the YAML parser. Anything it is not
//! sure of returns `None` and goes to serde_yaml; the tests check both agree.

use serde_yaml::{Mapping, Value};
use std::borrow::Cow;

/// The mapping of a block of plain `key: value` lines (blank lines allowed, CRLF allowed; a value
/// may be a double-quoted string, see [`parse_double_quoted`]), or `None` when any line needs
/// the YAML parser, a key repeats, or there is no key at all.
pub(super) fn parse_plain_block(block: &str) -> Option<Mapping> {
    let Some(entries) = plain_entries(block) else {
        return super::block::parse_block(block);
    };
    let mut mapping = Mapping::with_capacity(entries.len());
    for (key, value) in entries {
        mapping.insert(
            Value::String(key.to_owned()),
            Value::String(value.into_owned()),
        );
    }
    Some(mapping)
}

/// The entries [`parse_plain_block`] makes its mapping of, in order, borrowed from the block
/// where no escape had to be undone.
pub(super) fn plain_entries(block: &str) -> Option<Vec<(&str, Cow<'_, str>)>> {
    let mut entries: Vec<(&str, Cow<'_, str>)> = Vec::with_capacity(4);
    // Byte tests rather than `char` patterns: this is the hot path of every scan, and at the
    // size-optimised build's inlining a `char` pattern costs a searcher per call.
    for line in block.split('\n') {
        let line = match line.as_bytes().last() {
            Some(b'\r') => line.get(..line.len() - 1)?,
            _ => line,
        };
        if line.is_empty() {
            continue;
        }
        let colon = line.bytes().position(|b| b == b':')?;
        let key = line.get(..colon)?;
        // Over 1,000 bytes YAML no longer takes it as a simple key (serde_yaml refuses it).
        if !is_plain_key(key) || key.len() > 1000 || line.as_bytes().get(colon + 1) != Some(&b' ') {
            return None;
        }
        let value = line.get(colon + 2..)?.trim_start_matches(' ');
        let value = match value.as_bytes().first() {
            Some(b'"') => parse_double_quoted(value.get(1..)?)?,
            Some(b'\'') => parse_single_quoted(value.get(1..)?)?,
            _ if is_plain_value(value) => Cow::Borrowed(value),
            _ => return None,
        };
        // Few keys (the usual three): compare as they come. Many: one sort at the end, so a
        // block of thousands of keys does not cost their square.
        if entries.len() < FEW_KEYS && entries.iter().any(|(seen, _)| *seen == key) {
            return None;
        }
        entries.push((key, value));
    }
    if entries.len() > FEW_KEYS && has_repeated_key(&entries) {
        return None;
    }
    (!entries.is_empty()).then_some(entries)
}

/// Up to this many keys, repeats are found by comparing each new key with those before it.
const FEW_KEYS: usize = 16;

fn has_repeated_key(entries: &[(&str, Cow<'_, str>)]) -> bool {
    let mut keys: Vec<&str> = entries.iter().map(|(key, _)| *key).collect();
    crate::sort::sort(&mut keys);
    keys.windows(2).any(|pair| pair.first() == pair.last())
}

/// The `name`, `description` and `type` lines of a block the YAML parser is not given (see
/// [`super::MAX_YAML_BYTES`]): each top-level `key: value` line for one of them whose value
/// [`plain_entries`] would take, or that the reference's quoting retry would make a string of
/// (`description: Fix: use X`), the last one winning.
pub(super) fn memory_lines(block: &str) -> Mapping {
    let mut mapping = Mapping::new();
    for line in block.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        if !matches!(key, "name" | "description" | "type") {
            continue;
        }
        let Some(value) = rest.strip_prefix(' ').map(|v| v.trim_start_matches(' ')) else {
            continue;
        };
        let value = match value.as_bytes().first() {
            // Trailing spaces after the closing quote are allowed here.
            Some(&q @ (b'"' | b'\'')) => one_line(value.get(1..).unwrap_or_default(), q, true),
            _ => is_plain_value(value).then_some(Cow::Borrowed(value)),
        };
        // A value with YAML's special characters: what the reference's quoting retry reads.
        let value = value.or_else(|| {
            super::yaml::problematic_value(line).map(|(_, value)| Cow::Borrowed(value))
        });
        if let Some(value) = value {
            mapping.insert(
                Value::String(key.to_owned()),
                Value::String(value.into_owned()),
            );
        }
    }
    mapping
}

/// The string a one-line double-quoted scalar stands for, given what follows its opening quote:
/// the closing quote must end the line, every character between the quotes must be one YAML
/// reads (no line break), and every escape one of YAML's (`\0 \a \b \t \n \v \f \r \e`, `\ `,
/// `\"`, `\/`, `\\`, `\N \_ \L \P`, `\xXX`, `\uXXXX`, `\UXXXXXXXX` naming a Unicode scalar value,
/// and a backslash before a tab); anything else gives `None`.
fn parse_double_quoted(after_quote: &str) -> Option<Cow<'_, str>> {
    one_line(after_quote, b'"', false)
}

/// The string a one-line single-quoted scalar stands for, given what follows its opening
/// quote: the closing quote must end the line, `''` stands for `'`; anything else gives `None`.
fn parse_single_quoted(after_quote: &str) -> Option<Cow<'_, str>> {
    one_line(after_quote, b'\'', false)
}

/// A quoted scalar that ends its line (after spaces, with `spaces`).
fn one_line(after_quote: &str, quote: u8, spaces: bool) -> Option<Cow<'_, str>> {
    if !prints_in_quotes(after_quote) {
        return None;
    }
    let (value, rest) = super::block::one_line_quoted(after_quote, quote)?;
    let rest = if spaces {
        rest.trim_end_matches(' ')
    } else {
        rest
    };
    rest.is_empty().then_some(value)
}

/// Characters YAML takes as they are inside a one-line quoted scalar (see
/// [`is_yaml_printable`]), and tabs.
fn prints_in_quotes(run: &str) -> bool {
    run.bytes()
        .all(|b| (0x20..=0x7E).contains(&b) || b == b'\t')
        || run.chars().all(|c| c == '\t' || is_yaml_printable(c))
}

/// An identifier-like key that YAML reads as a string (`null`, `true` and `false` in any case
/// are left to the parser).
pub(super) fn is_plain_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !is_reserved_word(key)
}

/// True when `value`, written after `key: ` on one line, is read by YAML as exactly this string:
/// no indicator first, nothing that looks like a number, boolean or null, no `: ` or ` #`, no
/// surrounding or tab whitespace, only characters YAML prints.
pub(super) fn is_plain_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    let starts_safely = !matches!(
        first,
        b'0'..=b'9'
            | b'-'
            | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
            | b'+'
            | b'.'
            | b'~'
            | b' '
    );
    starts_safely
        && !matches!(last, b' ' | b':')
        && prints_plainly(value)
        && !is_reserved_word(value)
}

/// One pass over the bytes: no `: ` and no ` #`, and only characters YAML prints (the ASCII
/// ones checked here, the rest by [`is_yaml_printable`] only when there are any).
fn prints_plainly(value: &str) -> bool {
    let bytes = value.as_bytes();
    let mut ascii = true;
    for (i, &b) in bytes.iter().enumerate() {
        let next = bytes.get(i + 1).copied();
        match b {
            b':' if next == Some(b' ') => return false,
            b' ' if next == Some(b'#') => return false,
            0x20..=0x7E => {}
            0x80.. => ascii = false,
            _ => return false,
        }
    }
    ascii || value.chars().all(is_yaml_printable)
}

/// Characters YAML accepts inside a one-line plain scalar (no tab, no line breaks of any kind,
/// no BOM, no control characters).
pub(super) fn is_yaml_printable(c: char) -> bool {
    matches!(c,
        ' '..='\u{7E}'
        | '\u{A0}'..='\u{2027}'
        | '\u{202A}'..='\u{D7FF}'
        | '\u{E000}'..='\u{FEFE}'
        | '\u{FF00}'..='\u{FFFD}'
        | '\u{10000}'..)
}

/// `null`, `true` or `false` in any ASCII case. Byte patterns (`| 0x20` lowers an ASCII
/// letter and makes no other byte one): every key and value of every header comes here.
fn is_reserved_word(word: &str) -> bool {
    match *word.as_bytes() {
        [a, b, c, d] => matches!(
            [a | 0x20, b | 0x20, c | 0x20, d | 0x20],
            [b'n', b'u', b'l', b'l'] | [b't', b'r', b'u', b'e']
        ),
        [a, b, c, d, e] => [a | 0x20, b | 0x20, c | 0x20, d | 0x20, e | 0x20] == *b"false",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample::{KEYS, ODD_KEYS, QUOTED, SAFE, WORDS};
    use super::super::yaml::parse_lenient;
    use super::*;

    #[test]
    fn a_key_too_long_for_a_simple_key_falls_back() {
        let block = format!("{}: v\nname: x\n", "k".repeat(1100));
        assert!(plain_entries(&block).is_none());
        assert!(parse_lenient(&block).is_err(), "serde_yaml refuses it too");
        let fine = format!("{}: v\nname: x\n", "k".repeat(1000));
        assert!(plain_entries(&fine).is_some());
        assert!(parse_lenient(&fine).is_ok());
    }

    #[test]
    fn takes_plain_headers() {
        let block =
            "name: Role\r\ndescription: Senior Go dev, likes [tests] & a#b\r\n\r\ntype:   user\r\n";
        let mapping = parse_plain_block(block).unwrap();
        assert_eq!(mapping.len(), 3);
        assert_eq!(
            mapping["description"],
            Value::from("Senior Go dev, likes [tests] & a#b")
        );
        assert_eq!(mapping["type"], Value::from("user"));
    }

    #[test]
    fn takes_double_quoted_values() {
        let block =
            "name: \"Role: \\\"lead\\\" # 1\"\ndescription: \"a\\\\b\\nc\\td\"\ntype: \"\"\n";
        let mapping = parse_plain_block(block).unwrap();
        assert_eq!(mapping["name"], Value::from("Role: \"lead\" # 1"));
        assert_eq!(mapping["description"], Value::from("a\\b\nc\td"));
        assert_eq!(mapping["type"], Value::from(""));
        assert_eq!(Value::Mapping(mapping), parse_lenient(block).unwrap().value);
    }

    #[test]
    fn leaves_everything_doubtful_to_yaml() {
        for block in [
            "",
            "\n\n",
            "a: 1.5",
            "a: 012",
            "a: +1",
            "a: yes\nb: TRUE\nc: tRUE",
            "a: x\na: y",
            "a: x: y",
            "a:x",
            "a:\tx",
            "a: 'x",
            "a: 'x'y'",
            "a: \"x\"y",
            "a: \"x",
            "a: \"\\x4\"",
            "a: \"\\xZZ\"",
            "a: \"\\ud800\"",
            "a: \"\\U00110000\"",
            "a: \"\\q\"",
            "a: \"\\\"",
            "a: \"x\"#c",
            "a: x\n  continued",
            "a: \u{FEFF}x",
            "a: x\u{2028}y",
            "a: x\ry",
            "Null: x",
            "a-: -x",
            "2a: x",
        ] {
            assert_eq!(parse_plain_block(block), None, "{block:?}");
        }
        // One-line forms the fast path takes, all as serde_yaml reads them.
        for block in [
            "a: 1\nb: -20\nc: 0",
            "a: x #c\nb: x ",
            "# comment\na: x",
            "a: \"x\" \nb: 'x' #c",
            "a: \"x\\ty\"\nb: 'x\ty'",
        ] {
            let fast = parse_plain_block(block).unwrap_or_else(|| panic!("{block:?}"));
            assert_eq!(Value::Mapping(fast), parse_lenient(block).unwrap().value);
        }
    }

    /// A small deterministic generator (xorshift64*), so the property test needs no crate.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    fn random_value(rng: &mut Rng) -> String {
        (0..1 + rng.below(4))
            .map(|_| match rng.below(3) {
                0 => rng.pick(WORDS),
                _ => rng.pick(SAFE),
            })
            .collect()
    }

    /// A value quoted by `quote`, ended by one of `ends`: closed, unclosed, or with something
    /// after the closing quote.
    fn random_quoted(rng: &mut Rng, quote: &str, ends: &[&str]) -> String {
        let mut value = String::from(quote);
        for _ in 0..rng.below(5) {
            value.push_str(match rng.below(3) {
                0 => rng.pick(QUOTED),
                1 => rng.pick(WORDS),
                _ => rng.pick(SAFE),
            });
        }
        value.push_str(rng.pick(ends));
        value
    }

    fn random_block(rng: &mut Rng) -> String {
        let mut block = String::new();
        for _ in 0..1 + rng.below(4) {
            match rng.below(10) {
                0 => block.push('\n'),
                1 => block.push_str("\r\n"),
                _ => {
                    let keys = if rng.below(5) == 0 { ODD_KEYS } else { KEYS };
                    block.push_str(rng.pick(keys));
                    block.push_str(rng.pick(&[": ", ": ", ": ", ":  ", ":", ":\t", " : "]));
                    if rng.below(3) == 0 {
                        let ends = ["\"", "\"", "\"", "\"", "", "\" ", "\" #c", "\"x"];
                        block.push_str(&random_quoted(rng, "\"", &ends));
                    } else if rng.below(4) == 0 {
                        let ends = ["'", "'", "'", "''", "", "' ", "' #c", "'x"];
                        block.push_str(&random_quoted(rng, "'", &ends));
                    } else {
                        block.push_str(&random_value(rng));
                    }
                    block.push_str(rng.pick(&["\n", "\n", "\r\n", ""]));
                }
            }
        }
        block
    }

    #[test]
    fn fast_path_agrees_with_serde_yaml() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut fast = 0;
        let mut quoted = 0;
        let mut single = 0;
        let mut escaped = 0;
        let cases = 40_000;
        for _ in 0..cases {
            let block = random_block(&mut rng);
            let Some(mapping) = parse_plain_block(&block) else {
                continue;
            };
            fast += 1;
            quoted += usize::from(block.contains(": \""));
            single += usize::from(block.contains(": '"));
            escaped += usize::from(block.contains(": \"") && block.contains('\\'));
            let parsed = parse_lenient(&block)
                .unwrap_or_else(|e| panic!("fast path took {block:?}, YAML rejects it: {e}"));
            assert_eq!(Value::Mapping(mapping), parsed.value, "{block:?}");
        }
        // The generator must exercise the fast path, not only its refusals, quoted values too.
        assert!(fast > cases / 20, "only {fast} blocks took the fast path");
        assert!(
            quoted > cases / 100,
            "only {quoted} quoted blocks took the fast path"
        );
        assert!(single > cases / 200, "only {single} single-quoted blocks");
        assert!(escaped > cases / 200, "only {escaped} escaped blocks");
    }

    #[test]
    fn reserved_words_are_found_in_any_case_and_nothing_else() {
        // Letters of the words in both cases, and bytes one bit away from them.
        let four = b"nNuUlLtTrReE.@`\x0e\xce";
        let five = b"fFaAlLsSeE@\x06\xc6";
        let oracle = |w: &str| {
            ["null", "true", "false"]
                .iter()
                .any(|r| w.eq_ignore_ascii_case(r))
        };
        for (len, alphabet) in [(3, four.as_slice()), (4, four), (5, five), (6, five)] {
            let mut digits = vec![0usize; len];
            loop {
                let word: Vec<u8> = digits.iter().map(|&d| alphabet[d]).collect();
                let word = String::from_utf8_lossy(&word);
                assert_eq!(is_reserved_word(&word), oracle(&word), "{word:?}");
                let Some(i) = digits.iter().position(|&d| d + 1 < alphabet.len()) else {
                    break;
                };
                digits[i] += 1;
                digits[..i].fill(0);
            }
        }
    }

    #[test]
    fn plain_values_read_back_as_themselves() {
        let mut rng = Rng(42);
        for _ in 0..20_000 {
            let value = random_value(&mut rng);
            if is_plain_value(&value) {
                let parsed = parse_lenient(&format!("k: {value}\n")).unwrap();
                assert_eq!(parsed.value["k"], Value::String(value.clone()), "{value:?}");
            }
        }
    }
}
