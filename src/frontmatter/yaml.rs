//! The full YAML path: serde_yaml with duplicate keys resolved to the last value, tags dropped,
//! and the reference's one retry with problematic values quoted.

use crate::jsstr::{is_js_line_terminator, is_js_whitespace};
use serde::de::Visitor;
use serde::de::{DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess};
use serde_yaml::{Mapping, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Why `block` must not go to the YAML parser (too long, or nested too deeply for its
/// time to stay linear), as a diagnostic; `None` when it may. One pass over the bytes.
pub(super) fn refusal(block: &str) -> Option<String> {
    use super::{MAX_FLOW_DEPTH, MAX_YAML_BYTES};
    const KEPT: &str = "only its name, description and type lines were read";
    if block.len() > MAX_YAML_BYTES {
        return Some(format!(
            "frontmatter is {} bytes, more than the {MAX_YAML_BYTES} read as YAML: \
             not parsed as YAML; {KEPT}",
            block.len()
        ));
    }
    let mut depth = 0usize;
    for b in block.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return Some(format!(
                        "frontmatter nests `[`/`{{` more than {MAX_FLOW_DEPTH} deep: \
                         not parsed as YAML; {KEPT}"
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parse a frontmatter block as YAML, recovering what the reference recovers. Only a mapping is
/// kept; anything else leaves the result empty. Diagnostics say what happened.
pub(super) fn parse_block(block: &str, diagnostics: &mut Vec<String>) -> Mapping {
    let parsed = match parse_lenient(block) {
        Ok(parsed) => parsed,
        Err(first) => match parse_lenient(&quote_problematic_values(block)) {
            Ok(parsed) => {
                diagnostics.push(format!(
                    "frontmatter YAML did not parse ({first}); \
                     values with special characters were quoted and it parsed on retry"
                ));
                parsed
            }
            Err(second) => {
                diagnostics.push(format!(
                    "frontmatter YAML did not parse ({first}), \
                     not even with special values quoted ({second}); read entry by entry"
                ));
                return salvage(block, diagnostics);
            }
        },
    };
    for key in &parsed.duplicate_keys {
        diagnostics.push(format!(
            "frontmatter key {key} appears more than once; the last value was kept"
        ));
    }
    match parsed.value {
        Value::Mapping(mapping) => mapping,
        Value::Null => Mapping::new(),
        other => {
            diagnostics.push(format!(
                "frontmatter is {}, not a mapping; ignored",
                kind_of(&other)
            ));
            Mapping::new()
        }
    }
}

/// A block that is not YAML as a whole, read one top-level entry at a time (see
/// [`top_level_entries`]): every entry that parses on its own (or with its value quoted, as the
/// reference retries) is kept, later keys replacing earlier ones; an entry that does not keeps
/// its first line if that parses; an entry with an empty key (`:` or `: value` at the start of a
/// line) becomes the key `""`, as the reference's parsers read it. Every line left out, and
/// every empty key, is named in `diagnostics`, so one odd line never costs the whole header.
fn salvage(block: &str, diagnostics: &mut Vec<String>) -> Mapping {
    let mut mapping = Mapping::new();
    for (line, entry) in top_level_entries(block) {
        let lines = entry.trim_end_matches(['\n', '\r']).split('\n').count();
        let (kept, used_lines) = match entry_mapping(entry) {
            Some(kept) => (kept, lines),
            None => {
                let head = entry.split('\n').next().unwrap_or_default();
                match entry_mapping(head).filter(|_| lines > 1) {
                    Some(kept) => (kept, 1),
                    None => (Mapping::new(), 0),
                }
            }
        };
        if entry.starts_with(':') && used_lines > 0 {
            diagnostics.push(format!(
                "frontmatter line {line} has an empty key; read as the key \"\""
            ));
        }
        if used_lines < lines {
            let first = line + used_lines;
            let last = line + lines - 1;
            diagnostics.push(if first == last {
                format!("frontmatter line {first} is not YAML; skipped")
            } else {
                format!("frontmatter lines {first}-{last} are not YAML; skipped")
            });
        }
        for (key, value) in kept {
            if mapping.contains_key(&key) {
                diagnostics.push(format!(
                    "frontmatter key {} appears more than once; the last value was kept",
                    key_label(&key)
                ));
            }
            mapping.insert(key, value);
        }
    }
    mapping
}

/// The mapping one top-level entry holds, if it parses (as is, or with its value quoted).
fn entry_mapping(entry: &str) -> Option<Mapping> {
    if let Some(rest) = entry.strip_prefix(':') {
        // An empty key: read the value under a placeholder key, then give it the key `""`.
        let value = entry_mapping(&format!("k:{rest}"))?.into_iter().next()?.1;
        let mut mapping = Mapping::new();
        mapping.insert(Value::String(String::new()), value);
        return Some(mapping);
    }
    let parsed = parse_lenient(entry)
        .or_else(|_| parse_lenient(&quote_problematic_values(entry)))
        .ok()?;
    match parsed.value {
        Value::Mapping(mapping) => Some(mapping),
        Value::Null => Some(Mapping::new()),
        _ => None,
    }
}

/// The block cut into top-level entries, each with its 1-based first line number: an entry
/// starts at every line that begins with a character other than whitespace, `#` or a `-`
/// sequence marker, and runs to the next one (so indented continuation lines, block scalars and
/// sequence items stay with their key). Text before the first entry (blank lines, comments)
/// is an entry of its own.
fn top_level_entries(block: &str) -> Vec<(usize, &str)> {
    let mut entries = Vec::new();
    let mut start = 0;
    let mut start_line = 1;
    let mut offset = 0;
    for (index, line) in block.split_inclusive('\n').enumerate() {
        let opens = line
            .chars()
            .next()
            .is_some_and(|c| !is_js_whitespace(c) && c != '#')
            && !is_sequence_item(line);
        if opens && offset > start {
            entries.push((start_line, block.get(start..offset).unwrap_or_default()));
            start = offset;
            start_line = index + 1;
        }
        offset += line.len();
    }
    if offset > start {
        entries.push((start_line, block.get(start..offset).unwrap_or_default()));
    }
    entries
}

/// A line that is a YAML sequence item: `-` then whitespace or the line end.
fn is_sequence_item(line: &str) -> bool {
    line.strip_prefix('-')
        .is_some_and(|rest| rest.chars().next().is_none_or(is_js_whitespace))
}

/// A YAML value and the keys that were given more than once.
pub(super) struct Lenient {
    pub(super) value: Value,
    pub(super) duplicate_keys: Vec<String>,
}

/// serde_yaml, except that a repeated mapping key keeps its last value (as Bun's parser does)
/// instead of failing, and tags are dropped (JS values have none).
pub(super) fn parse_lenient(text: &str) -> Result<Lenient, serde_yaml::Error> {
    let duplicates = RefCell::new(Vec::new());
    let seed = LenientValue {
        duplicates: &duplicates,
    };
    let value = seed.deserialize(serde_yaml::Deserializer::from_str(text))?;
    Ok(Lenient {
        value,
        duplicate_keys: duplicates.into_inner(),
    })
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

#[derive(Clone, Copy)]
struct LenientValue<'a> {
    duplicates: &'a RefCell<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for LenientValue<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LenientValue<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any YAML value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    // Integers beyond 64 bits become the nearest double, as JS numbers are.
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Number(Number::from(v as f64)))
    }

    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(Value::Number(Number::from(v as f64)))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut mapping = Mapping::new();
        while let Some(key) = map.next_key_seed(self)? {
            let value = map.next_value_seed(self)?;
            // JS object keys are strings: `1.5: a` is `{ "1.5": "a" }` in the reference.
            let key = Value::String(js_key(&key));
            if mapping.contains_key(&key) {
                self.duplicates.borrow_mut().push(key_label(&key));
            }
            mapping.insert(key, value);
        }
        Ok(Value::Mapping(mapping))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        // serde_yaml reports a tagged node (`!tag value`) as an enum; keep the value only.
        let (tag, contents): (String, _) = data.variant()?;
        let value = contents.newtype_variant_seed(self)?;
        // `!`, the non-specific tag, makes a scalar a string, as the reference's parsers read
        // it: `a: !` is `""`, `a: ! 12` is `"12"`.
        Ok(if tag == "!" {
            non_specific(value)
        } else {
            value
        })
    }
}

/// A scalar under the non-specific tag `!`, as a string (collections are kept as they are).
fn non_specific(value: Value) -> Value {
    match value {
        Value::Null => Value::String(String::new()),
        Value::Bool(_) | Value::Number(_) => Value::String(super::js_string(&value)),
        other => other,
    }
}

fn key_label(key: &Value) -> String {
    match key {
        Value::String(s) => format!("{s:?}"),
        _ => "(complex key)".to_owned(),
    }
}

/// The property name JS gives a YAML key: `String(key)` (`null` for a null key).
fn js_key(key: &Value) -> String {
    match key {
        Value::Null => "null".to_owned(),
        Value::Tagged(tagged) => js_key(&tagged.value),
        other => super::js_string(other),
    }
}

/// The reference's `quoteProblematicValues`: on each line of the form `key: value` (key of ASCII
/// letters, `_` and `-`; whitespace after the colon), a value that is not already quoted and
/// holds one of `{}[]*&#!|>%@` and backtick, or `": "`, is rewritten as a double-quoted string
/// with `\` and `"` escaped.
pub(super) fn quote_problematic_values(block: &str) -> String {
    let mut out = String::with_capacity(block.len() + 16);
    for (index, line) in block.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        match problematic_value(line) {
            Some((key, value)) => {
                out.push_str(key);
                out.push_str(": \"");
                out.push_str(&value.replace('\\', "\\\\").replace('"', "\\\""));
                out.push('"');
            }
            None => out.push_str(line),
        }
    }
    out
}

/// `line.match(/^([a-zA-Z_-]+):\s+(.+)$/)` followed by the quoting test: the key and value when
/// the line needs quoting.
pub(super) fn problematic_value(line: &str) -> Option<(&str, &str)> {
    let key_len = line
        .bytes()
        .take_while(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'-')
        .count();
    let key = line.get(..key_len).filter(|key| !key.is_empty())?;
    let after_colon = line.get(key_len..)?.strip_prefix(':')?;
    let value = after_colon.trim_start_matches(is_js_whitespace);
    // `\s+` needs at least one whitespace; `.+` a non-empty value without line terminators (a
    // value of whitespace only could match by backtracking, but never needs quoting).
    if value.len() == after_colon.len() || value.is_empty() || value.contains(is_js_line_terminator)
    {
        return None;
    }
    let quoted = |q: char| value.starts_with(q) && value.ends_with(q);
    if quoted('"') || quoted('\'') {
        return None;
    }
    let special = value.contains(|c| "{}[]*&#!|>%@`".contains(c)) || value.contains(": ");
    special.then_some((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_follows_the_reference() {
        let cases = [
            (
                "description: Fix: use the real DB",
                "description: \"Fix: use the real DB\"",
            ),
            ("description:\tx: y", "description: \"x: y\""),
            ("description: @mention", "description: \"@mention\""),
            (
                "description: a \\ \"b\" #c",
                "description: \"a \\\\ \\\"b\\\" #c\"",
            ),
            (
                "description: \"already: quoted\"",
                "description: \"already: quoted\"",
            ),
            ("description: 'x: y'", "description: 'x: y'"),
            ("description: - item", "description: - item"),
            ("description2: a: b", "description2: a: b"),
            ("  indented: a: b", "  indented: a: b"),
            ("description:a: b", "description:a: b"),
            ("description: a: b\r", "description: a: b\r"),
            ("snake_case-key: {x}", "snake_case-key: \"{x}\""),
        ];
        for (line, expected) in cases {
            assert_eq!(quote_problematic_values(line), expected, "{line:?}");
        }
        assert_eq!(
            quote_problematic_values("a: %x\nb: ok\n"),
            "a: \"%x\"\nb: ok\n"
        );
    }

    #[test]
    fn duplicate_keys_keep_the_last_value_at_every_depth() {
        let parsed = parse_lenient("a: 1\nb: {c: 1, c: 2}\na: 3\n").unwrap();
        let expected: Value = serde_yaml::from_str("a: 3\nb: {c: 2}").unwrap();
        assert_eq!(parsed.value, expected);
        assert_eq!(parsed.duplicate_keys, ["\"c\"", "\"a\""]);
    }

    #[test]
    fn anchors_resolve_and_bombs_are_refused() {
        let parsed = parse_lenient("a: &x hi\nb: *x\n").unwrap();
        assert_eq!(parsed.value["b"], Value::String("hi".into()));
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        assert!(parse_lenient(&bomb).is_err());
    }

    #[test]
    fn entries_split_at_top_level_lines() {
        let block = "# c\na: 1\n  more\nb:\n- x\n-\nc: |\n  t\n:\n";
        let entries = top_level_entries(block);
        assert_eq!(
            entries,
            [
                (1, "# c\n"),
                (2, "a: 1\n  more\n"),
                (4, "b:\n- x\n-\n"),
                (7, "c: |\n  t\n"),
                (9, ":\n")
            ]
        );
        assert_eq!(top_level_entries(""), []);
    }

    #[test]
    fn the_non_specific_tag_makes_strings() {
        let parsed = parse_lenient("a: !\nb: ! 12\nc: ! true\nd: ! [1]\ne: !x 5\n").unwrap();
        let expected: Value =
            serde_yaml::from_str("a: ''\nb: '12'\nc: 'true'\nd: [1]\ne: 5").unwrap();
        assert_eq!(parsed.value, expected);
    }

    #[test]
    fn non_mappings_are_dropped_with_a_diagnostic() {
        let mut diagnostics = Vec::new();
        assert!(parse_block("- a\n- b\n", &mut diagnostics).is_empty());
        assert!(parse_block("just text", &mut diagnostics).is_empty());
        assert!(parse_block("# only a comment\n", &mut diagnostics).is_empty());
        assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    }
}
