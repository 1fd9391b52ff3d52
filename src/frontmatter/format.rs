//! Writing a memory file: frontmatter that [`parse_frontmatter`](super::parse_frontmatter) and
//! the reference both read back exactly, then the body.

use super::fast::is_plain_value;
use super::MemoryFields;
use std::fmt::Write as _;

/// A memory file's text: `---`, the present fields among `name`, `description`, `type` (one line
/// each), `---`, an empty line, then the body verbatim.
///
/// A value is written plain when YAML reads it back unchanged; otherwise it is double-quoted with
/// YAML escapes, so any string survives the round trip (newlines, quotes, `: `, `#`, leading `-`,
/// unicode). A run of three dashes is escaped too, so the reference (which ends frontmatter at the
/// first `---` anywhere) also reads the value whole. `parse_frontmatter` returns the body as
/// given. An empty description reads back as `None`: the reference treats `""` as absent.
///
/// ```
/// use memdir::{format_memory_file, parse_frontmatter, MemoryFields, MemoryType};
/// let header = MemoryFields {
///     name: Some("Testing policy".into()),
///     description: Some("Integration tests: hit a real DB".into()),
///     memory_type: Some(MemoryType::Feedback),
/// };
/// let text = format_memory_file(&header, "Why: mocks hid a broken migration.\n");
/// assert_eq!(
///     text,
///     "---\nname: Testing policy\ndescription: \"Integration tests: hit a real DB\"\n\
///      type: feedback\n---\n\nWhy: mocks hid a broken migration.\n"
/// );
/// let parsed = parse_frontmatter(&text);
/// assert_eq!(parsed.header, header);
/// assert_eq!(parsed.body, "Why: mocks hid a broken migration.\n");
/// ```
pub fn format_memory_file(header: &MemoryFields, body: &str) -> String {
    format_memory_file_modified(header, None, body)
}

/// [`format_memory_file`] with a `modified` key after the fields: the time of this write as an
/// ISO 8601 UTC string (`"2026-03-05T10:00:00.000Z"`, quoted so no YAML reader takes it for a
/// date object), as the reference writes it since 2.1.214. `None`, or a time no JS `Date` can
/// hold, writes no key. Readers take it for the memory's age ([`super::modified_ms`]).
///
/// ```
/// use memdir::frontmatter::{format_memory_file_modified, modified_ms, parse_frontmatter};
/// use memdir::MemoryFields;
/// let fields = MemoryFields { name: Some("Role".into()), ..MemoryFields::default() };
/// let text = format_memory_file_modified(&fields, Some(1_700_000_000_123.0), "Body\n");
/// assert_eq!(text, "---\nname: Role\nmodified: \"2023-11-14T22:13:20.123Z\"\n---\n\nBody\n");
/// assert_eq!(modified_ms(&parse_frontmatter(&text).frontmatter), Some(1_700_000_000_123.0));
/// ```
pub fn format_memory_file_modified(
    header: &MemoryFields,
    modified_ms: Option<f64>,
    body: &str,
) -> String {
    let mut out = String::with_capacity(body.len() + 160);
    out.push_str("---\n");
    if let Some(name) = &header.name {
        push_field(&mut out, "name", name);
    }
    if let Some(description) = &header.description {
        push_field(&mut out, "description", description);
    }
    if let Some(memory_type) = header.memory_type {
        push_field(&mut out, "type", memory_type.as_str());
    }
    if let Some(ms) = modified_ms.filter(|ms| crate::manifest::is_valid_time(*ms)) {
        out.push_str("modified: ");
        push_double_quoted(&mut out, &crate::manifest::iso_timestamp(ms));
        out.push('\n');
    }
    out.push_str("---\n\n");
    out.push_str(body);
    out
}

fn push_field(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push_str(": ");
    if is_plain_value(value) && !value.contains("---") {
        out.push_str(value);
    } else {
        push_double_quoted(out, value);
    }
    out.push('\n');
}

/// A YAML double-quoted scalar for `value`: escapes for `\`, `"`, control and non-printable
/// characters and YAML line breaks, and `\x2D` for every dash that would make a run of three.
fn push_double_quoted(out: &mut String, value: &str) {
    out.push('"');
    let mut dashes = 0;
    for c in value.chars() {
        dashes = if c == '-' { dashes + 1 } else { 0 };
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            '-' if dashes >= 3 => {
                out.push_str("\\x2D");
                dashes = 0;
            }
            c if c < ' ' || ('\u{7F}'..='\u{9F}').contains(&c) => {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            }
            '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}' => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::super::parse_frontmatter;
    use super::*;
    use crate::types::MemoryType;

    #[test]
    fn quotes_only_when_needed() {
        let header = MemoryFields {
            name: Some("plain name".into()),
            description: Some("- a list?\n---\nb".into()),
            memory_type: None,
        };
        assert_eq!(
            format_memory_file(&header, ""),
            "---\nname: plain name\ndescription: \"- a list?\\n--\\x2D\\nb\"\n---\n\n"
        );
        assert_eq!(
            format_memory_file(&MemoryFields::default(), "x"),
            "---\n---\n\nx"
        );
    }

    /// Deterministic xorshift64* generator.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
        }
    }

    const PIECES: &[&str] = &[
        "a", "Word", " ", "  ", "\n", "\r\n", "\r", "\t", ":", ": ", "#", " #", "-", "- ", "---",
        "----", "'", "\"", "\\", "\\n", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@",
        "`", "?", "~", "null", "true", "yes", "1", "0x1F", "1e3", ".", "...", "é", "日本", "😀",
        "\u{A0}", "\u{85}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFE}", "\u{FFFF}", "\u{0}",
        "\u{1B}", "\u{7F}", "\u{9F}", "<!--", "=",
    ];

    fn random_string(rng: &mut Rng) -> String {
        (0..rng.below(7))
            .map(|_| PIECES[rng.below(PIECES.len())])
            .collect()
    }

    #[test]
    fn any_strings_round_trip() {
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        for i in 0..5_000 {
            let name = random_string(&mut rng);
            let description = random_string(&mut rng);
            let body = random_string(&mut rng);
            let memory_type = MemoryType::ALL.get(i % 5).copied();
            let header = MemoryFields {
                name: Some(name.clone()),
                description: Some(description.clone()),
                memory_type,
            };
            let text = format_memory_file(&header, &body);
            let parsed = parse_frontmatter(&text);
            assert_eq!(parsed.header.name, Some(name), "{text:?}");
            let expected = (!description.is_empty()).then_some(description);
            assert_eq!(parsed.header.description, expected, "{text:?}");
            assert_eq!(parsed.header.memory_type, memory_type, "{text:?}");
            assert_eq!(parsed.body, body, "{text:?}");
            assert!(
                parsed.diagnostics.is_empty(),
                "{text:?}: {:?}",
                parsed.diagnostics
            );
            // The reference closes at the first `---` after the opening line: it must be ours.
            let closing = text.get(4..).and_then(|rest| rest.find("---")).unwrap();
            assert!(text[4 + closing..].starts_with("---\n\n"), "{text:?}");
        }
    }
}
