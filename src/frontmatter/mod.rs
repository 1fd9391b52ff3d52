//! Frontmatter parsing and formatting.
//!
//! A memory file opens with `---` at offset 0 (optional whitespace, then a newline; `----` does
//! not open), holds a YAML mapping, and closes with a line that is exactly `---` (optional
//! trailing whitespace). The reference closes at the first `---` anywhere, even mid-value; we
//! require a line of its own. YAML follows the 1.2 core schema (`yes`/`no` are strings),
//! duplicate keys keep the last value, and a block that does not parse gets the reference's
//! retry with problematic values quoted. A block that still does not parse is read entry by
//! entry: every key that parses on its own is kept (an empty key `:` becomes `""`, as in the
//! reference), and each line left out is named, so one odd line never costs the whole header.
//! A bare `!` tag makes a scalar a string (`a: !` is `""`). Parsing never fails: what was
//! recovered or dropped is reported in [`ParsedFrontmatter::diagnostics`].
//!
//! Plain `key: value` headers, the common case, are read by a small fast path that gives the
//! same mapping as the YAML parser (property-tested and fuzzed against it); so are quoted
//! scalars over several lines, block and folded scalars, block and flow sequences of scalars
//! and nested mappings of these (`block.rs`). Everything else goes to serde_yaml.
//!
//! Every step takes time linear in the text. The fast path and the delimiter search are linear
//! by construction; libyaml is not on every shape (its cost grows with the nesting of flow
//! collections times their length, so 16 KB of `[` took seconds), so a block goes to it only
//! within two caps, checked first in one pass:
//!
//! * [`MAX_YAML_BYTES`] (64 KiB) of block text;
//! * [`MAX_FLOW_DEPTH`] (128) levels of `[`/`{` nesting, counted on the raw text (a bracket
//!   inside a quoted string counts too, so the estimate errs high; serde_yaml refuses YAML
//!   nested deeper than 128 levels anyway). At this depth libyaml spends about 2 µs per byte.
//!
//! Past either, the block is not parsed as YAML: a diagnostic says so, and the `name`,
//! `description` and `type` lines are kept when the fast path can read their values or the
//! reference's quoting retry would make strings of them, so one odd header does not lose the
//! memory's fields. Plain `key: value` blocks of any size still take the fast path.

mod block;
mod fast;
mod format;
mod js_json;
mod sample;
mod slices;
mod yaml;

pub use format::{format_memory_file, format_memory_file_modified};
pub use js_json::{fast_path_against_yaml, head_for_js, HeadForJs, HEADER_KEYS};
#[doc(hidden)]
pub use sample::sample_block;

use crate::jsstr::{is_js_whitespace, js_number_to_string};
use crate::types::MemoryType;
use serde::Serialize;
use serde_yaml::{Mapping, Value};

/// Largest frontmatter block, in bytes, given to the YAML parser. A larger block that is not
/// plain `key: value` lines keeps only its `name`, `description` and `type` lines, with a
/// diagnostic (see the module documentation).
///
/// ```
/// use memdir::frontmatter::{parse_frontmatter, MAX_YAML_BYTES};
/// let text = format!("---\nname: Big\nlist: [{}]\n---\n", "a, ".repeat(MAX_YAML_BYTES / 3));
/// let parsed = parse_frontmatter(&text);
/// assert_eq!(parsed.header.name.as_deref(), Some("Big"));
/// assert!(parsed.frontmatter.get("list").is_none());
/// assert!(parsed.diagnostics[0].contains("not parsed as YAML"));
/// ```
pub const MAX_YAML_BYTES: usize = 64 * 1024;

/// Deepest nesting of flow collections (`[`, `{`) given to the YAML parser, counted over the raw
/// block (brackets in strings count too). A deeper block keeps only its `name`, `description`
/// and `type` lines, with a diagnostic.
///
/// ```
/// use memdir::frontmatter::{parse_frontmatter, MAX_FLOW_DEPTH};
/// let text = format!("---\ntype: user\nx: {}\n---\n", "[".repeat(MAX_FLOW_DEPTH + 1));
/// let parsed = parse_frontmatter(&text);
/// assert_eq!(parsed.header.memory_type, Some(memdir::MemoryType::User));
/// assert!(parsed.diagnostics[0].contains("not parsed as YAML"));
/// ```
pub const MAX_FLOW_DEPTH: usize = 128;

/// The fields the memory system reads from frontmatter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryFields {
    /// `name`, if a string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `description` as JS would stringify it; falsy → `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `type`, if exactly one of the four.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
}

/// Result of [`parse_frontmatter`]. Never an error: problems become diagnostics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedFrontmatter {
    /// The YAML mapping (empty when absent or unparseable).
    pub frontmatter: Mapping,
    /// The text after the frontmatter.
    pub body: String,
    /// The memory fields.
    pub header: MemoryFields,
    /// What was recovered or dropped, for people.
    pub diagnostics: Vec<String>,
}

/// A file cut at its frontmatter delimiters; see [`split_frontmatter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontmatterSplit<'a> {
    /// The YAML text between the delimiter lines.
    pub block: &'a str,
    /// What follows the closing delimiter line, less one blank separator line (`\n` or `\r\n`)
    /// if there is one.
    pub body: &'a str,
}

/// What [`parse_frontmatter_head`] read from the start of a file: everything
/// [`parse_frontmatter`] returns except the body, which starts at `body_start`.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontmatterHead {
    /// The YAML mapping (empty when absent or unparseable).
    pub frontmatter: Mapping,
    /// The memory fields.
    pub header: MemoryFields,
    /// What was recovered or dropped, for people.
    pub diagnostics: Vec<String>,
    /// Byte offset of the body in the text given.
    pub body_start: usize,
}

/// Where the delimiters are in a text that may be only the start of a file.
enum Delimited<'a> {
    /// A closed block, and the byte offset where the body starts.
    Closed(FrontmatterSplit<'a>, usize),
    /// No block: the whole text is body. `opened` when a `---` line opened one that never closed.
    Absent { opened: bool },
    /// The text given ends before the answer is known.
    NeedMore,
}

/// Find the delimiters in `text`; when `complete` is false `text` is only the start of the file
/// and the answer may be [`Delimited::NeedMore`].
fn delimit(text: &str, complete: bool) -> Delimited<'_> {
    let need_more = |answer| {
        if complete {
            answer
        } else {
            Delimited::NeedMore
        }
    };
    let Some(after) = text.strip_prefix("---") else {
        return if "---".starts_with(text) {
            need_more(Delimited::Absent { opened: false })
        } else {
            Delimited::Absent { opened: false }
        };
    };
    let whitespace_len = after.len() - after.trim_start_matches(is_js_whitespace).len();
    if whitespace_len == after.len() && !complete {
        return Delimited::NeedMore;
    }
    let Some(last_newline) = after.get(..whitespace_len).and_then(|ws| ws.rfind('\n')) else {
        return Delimited::Absent { opened: false };
    };
    let block_start = 3 + last_newline + 1;
    let mut line_start = block_start;
    loop {
        let Some(rest) = text.get(line_start..) else {
            return need_more(Delimited::Absent { opened: true });
        };
        let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        if line_len == rest.len() && !complete && !rest.ends_with('\n') {
            return Delimited::NeedMore;
        }
        let line = rest.get(..line_len).unwrap_or(rest);
        if is_closing_line(line) {
            let after = rest.get(line_len..).unwrap_or("");
            if after.len() < 2 && !complete {
                return Delimited::NeedMore;
            }
            let body = after
                .strip_prefix('\n')
                .or_else(|| after.strip_prefix("\r\n"))
                .unwrap_or(after);
            let block = text.get(block_start..line_start).unwrap_or("");
            return Delimited::Closed(FrontmatterSplit { block, body }, text.len() - body.len());
        }
        if line_len == rest.len() {
            return need_more(Delimited::Absent { opened: true });
        }
        line_start += line_len;
    }
}

/// Find the frontmatter delimiters without parsing YAML. `None` when the text does not open with
/// a `---` line or the block is never closed by a `---` line.
///
/// ```
/// use memdir::frontmatter::split_frontmatter;
/// let split = split_frontmatter("---\r\nname: a---b\r\n---\r\n\r\nBody").unwrap();
/// assert_eq!(split.block, "name: a---b\r\n");
/// assert_eq!(split.body, "Body");
/// assert!(split_frontmatter("----\nname: x\n---\n").is_none());
/// ```
pub fn split_frontmatter(text: &str) -> Option<FrontmatterSplit<'_>> {
    match delimit(text, true) {
        Delimited::Closed(split, _) => Some(split),
        Delimited::Absent { .. } | Delimited::NeedMore => None,
    }
}

/// `---` followed only by whitespace up to the line end.
fn is_closing_line(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.chars().all(is_js_whitespace))
}

/// Parse a memory file's frontmatter. Never fails: a missing, unclosed or unusable block leaves
/// the mapping empty and the whole text as body, with a diagnostic saying why.
///
/// ```
/// use memdir::{parse_frontmatter, MemoryType};
/// let parsed = parse_frontmatter(
///     "---\nname: Role\ndescription: Fix: use the real DB\ntype: user\n---\n\nSenior Go dev.\n",
/// );
/// assert_eq!(parsed.header.name.as_deref(), Some("Role"));
/// assert_eq!(parsed.header.description.as_deref(), Some("Fix: use the real DB"));
/// assert_eq!(parsed.header.memory_type, Some(MemoryType::User));
/// assert_eq!(parsed.body, "Senior Go dev.\n");
/// assert_eq!(parsed.diagnostics.len(), 1); // the description needed the quoting retry
/// ```
pub fn parse_frontmatter(text: &str) -> ParsedFrontmatter {
    let head = parse_head(delimit(text, true)).unwrap_or_else(|| FrontmatterHead {
        frontmatter: Mapping::new(),
        header: MemoryFields::default(),
        diagnostics: Vec::new(),
        body_start: 0,
    });
    ParsedFrontmatter {
        frontmatter: head.frontmatter,
        body: text.get(head.body_start..).unwrap_or(text).to_owned(),
        header: head.header,
        diagnostics: head.diagnostics,
    }
}

/// [`parse_frontmatter`] without the body, over the start of a file: `complete` says whether
/// `text` is the whole file. `None` when it is not and the block has not closed within it (or
/// its end is too near to tell); the caller then passes more. A JS caller passes a short prefix
/// first, so the body never crosses into wasm.
///
/// ```
/// use memdir::frontmatter::parse_frontmatter_head;
/// let file = "---\nname: Role\ntype: user\n---\n\nSenior Go dev.\n";
/// assert!(parse_frontmatter_head(&file[..12], false).is_none());
/// let head = parse_frontmatter_head(&file[..36], false).unwrap();
/// assert_eq!(head.header.name.as_deref(), Some("Role"));
/// assert_eq!(&file[head.body_start..], "Senior Go dev.\n");
/// ```
pub fn parse_frontmatter_head(text: &str, complete: bool) -> Option<FrontmatterHead> {
    parse_head(delimit(text, complete))
}

/// The `header` of [`parse_frontmatter_head`] for the header almost every memory file has
/// (`---`, ASCII `key: value` lines, plain or double-quoted without escapes, `---`), read
/// straight from the text: no line list,
/// no YAML mapping (a hashed map and a string per key and value, most of a scan's parsing).
/// `None` when the text is anything else or too short to tell; [`parse_frontmatter_head`]
/// then answers. Where this answers, it answers as that does (tested).
///
/// ```
/// use memdir::frontmatter::plain_header;
/// let file = "---\nname: Role\ntype: user\n---\n\nSenior Go dev.\n";
/// let header = plain_header(file, true).unwrap();
/// assert_eq!(header.name.as_deref(), Some("Role"));
/// let quoted = plain_header("---\ndescription: \"Rule: x\"\n---\n", true).unwrap();
/// assert_eq!(quoted.description.as_deref(), Some("Rule: x"));
/// assert_eq!(plain_header("---\nname: \"R\\u00f6le\"\n---\n", true), None); // escapes: the general way
/// ```
pub fn plain_header(text: &str, complete: bool) -> Option<MemoryFields> {
    let offsets = slices::head_offsets(text, complete, true)?;
    let mut header = MemoryFields::default();
    // Entries of `[key start, key end, value start, value end]`; a header key is `[i, 0]`.
    for entry in offsets.get(2..)?.chunks_exact(4) {
        let &[i, 0, start, end] = entry else { continue };
        let value = text.get(start as usize..end as usize)?;
        match i {
            0 => header.name = Some(value.to_owned()),
            // Only a quoted value can be empty, and an empty one is falsy.
            1 => header.description = (!value.is_empty()).then(|| value.to_owned()),
            _ => header.memory_type = MemoryType::parse(value),
        }
    }
    Some(header)
}

fn parse_head(delimited: Delimited<'_>) -> Option<FrontmatterHead> {
    let mut diagnostics = Vec::new();
    let (split, body_start) = match delimited {
        Delimited::NeedMore => return None,
        Delimited::Absent { opened } => {
            if opened {
                diagnostics.push(
                    "frontmatter opens with `---` but no `---` line closes it; read as body"
                        .to_owned(),
                );
            }
            return Some(FrontmatterHead {
                frontmatter: Mapping::new(),
                header: MemoryFields::default(),
                diagnostics,
                body_start: 0,
            });
        }
        Delimited::Closed(split, body_start) => (split, body_start),
    };
    let frontmatter = match fast::parse_plain_block(split.block) {
        Some(mapping) => mapping,
        None => match yaml::refusal(split.block) {
            Some(why) => {
                diagnostics.push(why);
                fast::memory_lines(split.block)
            }
            None => yaml::parse_block(split.block, &mut diagnostics),
        },
    };
    Some(FrontmatterHead {
        header: memory_fields(&frontmatter),
        frontmatter,
        diagnostics,
        body_start,
    })
}

/// The `modified` time of a frontmatter mapping (an ISO 8601 string, as the reference writes it
/// since 2.1.214), in milliseconds since the epoch; `None` when absent or not a valid time.
/// Where present it is the memory's age for freshness, in place of the file's mtime (which a
/// copy, a checkout or a sync resets).
///
/// ```
/// use memdir::frontmatter::{modified_ms, parse_frontmatter};
/// let parsed = parse_frontmatter("---\nname: a\nmodified: 2026-03-05T10:00:00Z\n---\n");
/// assert_eq!(modified_ms(&parsed.frontmatter), Some(1_772_704_800_000.0));
/// assert_eq!(modified_ms(&parse_frontmatter("---\nmodified: soon\n---\n").frontmatter), None);
/// ```
pub fn modified_ms(frontmatter: &Mapping) -> Option<f64> {
    frontmatter
        .get("modified")
        .and_then(Value::as_str)
        .and_then(crate::manifest::parse_iso_timestamp)
}

/// The time a memory's age is counted from: its `modified` frontmatter key when the file's
/// text has a valid one, else `mtime_ms`.
///
/// ```
/// use memdir::frontmatter::age_time_ms;
/// assert_eq!(age_time_ms("---\nmodified: 1970-01-02T00:00:00Z\n---\nx", 5.0), 86_400_000.0);
/// assert_eq!(age_time_ms("no frontmatter", 5.0), 5.0);
/// ```
pub fn age_time_ms(text: &str, mtime_ms: f64) -> f64 {
    parse_frontmatter_head(text, true)
        .and_then(|head| modified_ms(&head.frontmatter))
        .unwrap_or(mtime_ms)
}

/// The memory fields of a frontmatter mapping, read as the reference reads them.
fn memory_fields(frontmatter: &Mapping) -> MemoryFields {
    // One pass over the (few) entries: cheaper than three hashed lookups. Keys are unique.
    let mut fields = MemoryFields::default();
    for (key, value) in frontmatter {
        match key.as_str() {
            Some("name") => fields.name = value.as_str().map(str::to_owned),
            Some("description") => fields.description = truthy_js_string(value),
            Some("type") => fields.memory_type = value.as_str().and_then(MemoryType::parse),
            _ => {}
        }
    }
    fields
}

/// `value || null`, then JS template-literal stringification.
fn truthy_js_string(value: &Value) -> Option<String> {
    let truthy = match value {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::Tagged(tagged) => return truthy_js_string(&tagged.value),
        Value::Bool(true) | Value::Sequence(_) | Value::Mapping(_) => true,
    };
    truthy.then(|| js_string(value))
}

/// JS `String(value)` for a YAML value as JS would hold it (arrays join with `,`, null items
/// are empty, objects are `[object Object]`).
pub(super) fn js_string(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number_to_string(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        Value::Sequence(items) => {
            crate::jsstr::join(&items.iter().map(js_string).collect::<Vec<_>>(), ",")
        }
        Value::Mapping(_) => "[object Object]".to_owned(),
        Value::Tagged(tagged) => js_string(&tagged.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters() {
        let split = split_frontmatter("---  \n\n  a: 1\n---\t\nbody").unwrap();
        assert_eq!((split.block, split.body), ("  a: 1\n", "body"));
        let split = split_frontmatter("---\n---").unwrap();
        assert_eq!((split.block, split.body), ("", ""));
        let split = split_frontmatter("---\na: x\n---\n\n\nbody\n").unwrap();
        assert_eq!(split.body, "\nbody\n");
        // Indented or embedded `---` does not close; `----` neither.
        assert!(split_frontmatter("---\na: 1\n  ---\n").is_none());
        assert!(split_frontmatter("---\na: b---c\n").is_none());
        assert!(split_frontmatter("---\na: 1\n----\n").is_none());
        assert!(split_frontmatter("--- x\na: 1\n---\n").is_none());
        assert!(split_frontmatter("\n---\na: 1\n---\n").is_none());
        assert!(split_frontmatter("---").is_none());
    }

    #[test]
    fn unclosed_block_is_reported_and_kept_as_body() {
        let parsed = parse_frontmatter("---\nname: x\n");
        assert!(parsed.frontmatter.is_empty());
        assert_eq!(parsed.body, "---\nname: x\n");
        assert_eq!(parsed.diagnostics.len(), 1);
        let parsed = parse_frontmatter("plain text");
        assert!(parsed.diagnostics.is_empty());
    }

    #[test]
    fn description_is_stringified_like_js() {
        let cases = [
            ("description: 42", Some("42")),
            ("description: 0x1F", Some("31")),
            ("description: 1e3", Some("1000")),
            ("description: 0", None),
            ("description: 0.0", None),
            ("description: .nan", None),
            ("description: false", None),
            ("description: true", Some("true")),
            ("description: ''", None),
            ("description: ~", None),
            ("description:", None),
            (
                "description: [a, 1, [b, c], null, {k: v}]",
                Some("a,1,b,c,,[object Object]"),
            ),
            ("description: []", Some("")),
            ("description: {weird}", Some("[object Object]")),
            ("description: 2026-03-05", Some("2026-03-05")),
            (
                "description: 123456789012345678901234",
                Some("1.2345678901234569e+23"),
            ),
            ("description: !custom tagged", Some("tagged")),
        ];
        for (line, expected) in cases {
            let parsed = parse_frontmatter(&format!("---\n{line}\n---\n"));
            assert_eq!(parsed.header.description.as_deref(), expected, "{line}");
        }
    }

    #[test]
    fn blocks_past_the_yaml_caps_keep_their_memory_lines() {
        let deep = format!(
            "---\nname: \"Deep\"\nx: {}\ndescription: d: e\ndescription: kept: [x]\ntype: user\n---\nbody",
            "{".repeat(MAX_FLOW_DEPTH + 1)
        );
        let long = format!(
            "---\nname: Long\nx: [{}]\ntype: project\n---\nbody",
            "a, ".repeat(MAX_YAML_BYTES / 3)
        );
        for (text, name, kind) in [
            (&deep, "Deep", MemoryType::User),
            (&long, "Long", MemoryType::Project),
        ] {
            let parsed = parse_frontmatter(text);
            assert_eq!(parsed.header.name.as_deref(), Some(name));
            assert_eq!(parsed.header.memory_type, Some(kind));
            assert_eq!(parsed.body, "body");
            assert_eq!(parsed.frontmatter.len(), 2 + usize::from(name == "Deep"));
            assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
            assert!(parsed.diagnostics[0].contains("not parsed as YAML"));
        }
        assert_eq!(
            parse_frontmatter(&deep).header.description.as_deref(),
            Some("kept: [x]")
        );
        // Within the caps the same shapes go to YAML as before.
        let shallow = format!("---\nx: {}\n---\n", "[".repeat(MAX_FLOW_DEPTH));
        let parsed = parse_frontmatter(&shallow);
        assert!(!parsed.diagnostics[0].contains("not parsed as YAML"));
        // A long plain block is not capped: the fast path reads it whole.
        let plain: String = (0..20_000).map(|i| format!("k{i}: v\n")).collect();
        let parsed = parse_frontmatter(&format!("---\n{plain}name: n\n---\n"));
        assert_eq!(parsed.frontmatter.len(), 20_001);
        assert!(parsed.diagnostics.is_empty());
        // Many keys and one repeat: the fast path still leaves it to YAML (last value wins).
        let repeated = format!("---\n{plain}k7: w\n---\n");
        let parsed = parse_frontmatter(&repeated);
        assert!(
            parsed.diagnostics[0].contains("not parsed as YAML"),
            "{:?}",
            parsed.diagnostics
        );
        let few: String = (0..20).map(|i| format!("k{i}: v\n")).collect();
        let parsed = parse_frontmatter(&format!("---\n{few}k7: w\n---\n"));
        assert_eq!(parsed.frontmatter.len(), 20);
        assert_eq!(parsed.frontmatter["k7"], Value::from("w"));
        assert!(parsed.diagnostics[0].contains("more than once"));
    }

    #[test]
    fn an_odd_line_never_costs_the_header() {
        // The reference keeps `description` and adds the empty key.
        let parsed = parse_frontmatter("---\ndescription: a\n:\n---\nbody");
        let expected: Mapping = serde_yaml::from_str("description: a\n'': null").unwrap();
        assert_eq!(parsed.frontmatter, expected);
        assert_eq!(parsed.header.description.as_deref(), Some("a"));
        assert_eq!(parsed.body, "body");
        assert!(parsed
            .diagnostics
            .iter()
            .any(|d| d.contains("line 2 has an empty key")));
        // An empty key with a value, between other keys.
        let parsed = parse_frontmatter("---\nname: N\n: x\ntype: user\n---\n");
        assert_eq!(parsed.frontmatter[""], Value::from("x"));
        assert_eq!(parsed.header.name.as_deref(), Some("N"));
        assert_eq!(parsed.header.memory_type, Some(MemoryType::User));
        // A line that is not YAML at all: skipped and named, the rest kept.
        let parsed = parse_frontmatter(
            "---\nname: N\ndescription2: a: b\ndescription: d\n- stray\ntype: project\nlist:\n- a\n- b\n---\n",
        );
        let expected: Mapping =
            serde_yaml::from_str("name: N\ndescription: d\ntype: project\nlist: [a, b]").unwrap();
        assert_eq!(parsed.frontmatter, expected);
        assert_eq!(parsed.header.description.as_deref(), Some("d"));
        let lines: Vec<&String> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.contains("not YAML; skipped"))
            .collect();
        assert_eq!(lines.len(), 2, "{:?}", parsed.diagnostics);
        assert!(lines[0].contains("line 2 "), "{lines:?}");
        assert!(lines[1].contains("line 4 "), "{lines:?}");
        // Repeated keys across entries: the last wins, said once.
        let parsed = parse_frontmatter("---\nname: a\n:\nname: b\n---\n");
        assert_eq!(parsed.header.name.as_deref(), Some("b"));
        assert!(parsed
            .diagnostics
            .iter()
            .any(|d| d.contains("more than once")));
    }

    #[test]
    fn a_bare_tag_is_an_empty_string() {
        let parsed = parse_frontmatter("---\na: !\ndescription: ! 42\n---\n");
        assert_eq!(parsed.frontmatter["a"], Value::from(""));
        assert_eq!(parsed.header.description.as_deref(), Some("42"));
    }

    #[test]
    fn name_and_type_only_from_strings() {
        let parsed = parse_frontmatter("---\nname: 7\ntype: User\n---\n");
        assert_eq!(parsed.header, MemoryFields::default());
        let parsed = parse_frontmatter("---\nname: '7'\ntype: feedback\n---\n");
        assert_eq!(parsed.header.name.as_deref(), Some("7"));
        assert_eq!(parsed.header.memory_type, Some(MemoryType::Feedback));
        let parsed = parse_frontmatter("---\ntype: \"user \"\n---\n");
        assert_eq!(parsed.header.memory_type, None);
    }
}
