//! A parsed head as JSON text in the shape of JS `parseFrontmatter`'s result, for the JS entry
//! to `JSON.parse`: one string across the boundary costs less than building the object
//! property by property from wasm.

use super::{block, delimit, fast, parse_head, slices, Delimited, FrontmatterHead};
use crate::json::{push_joined, push_number, push_string};
use crate::jsstr::byte_to_utf16_index;
use crate::types::MemoryType;
use serde_yaml::{Mapping, Value};
use std::borrow::Cow;

/// `parseFrontmatter`'s result for the start of a file, in the form that crosses into JS most
/// cheaply; see [`head_for_js`].
#[derive(Clone, Debug, PartialEq)]
pub enum HeadForJs {
    /// The text ends before the frontmatter does: pass more.
    NeedMore,
    /// The result as JSON text, `body` being the UTF-16 offset of the body. `header` is an
    /// object, or, when every memory field equals its frontmatter value (a plain block), the
    /// list of those keys, for the caller to copy from `frontmatter`.
    Json(String),
    /// A plain block whose keys and values all stand in the text as they are (no escapes, an
    /// ASCII head): `[body, fields, key start, key end, value start, value end, …]`, UTF-16
    /// offsets into the text for the caller to slice, except that a key of [`HEADER_KEYS`] is
    /// `[i, 0]` for `HEADER_KEYS[i]` (no key ends at offset 0), so the caller uses its own
    /// string. `fields` has bit 0 set when the header's `name` is the `name` value, bit 1 the
    /// same for `description`, bit 2 for `type`.
    Slices(Vec<u32>),
    /// A value has no JSON form (NaN, ±Infinity, -0): the head, and the body's UTF-16 offset.
    Head(FrontmatterHead, usize),
}

/// [`super::parse_frontmatter_head`] as the JS entry wants it: offsets to slice, or JSON text,
/// whenever possible. A block of plain `key: value` lines, the common case, goes straight from
/// the text to offsets or JSON, without building a YAML mapping; the result is the same either
/// way (tested).
///
/// ```
/// use memdir::frontmatter::{head_for_js, HeadForJs};
/// let text = "---\nname: Role\ntype: user\n---\nBody";
/// assert_eq!(head_for_js(text, true), HeadForJs::Slices(vec![30, 0b101, 0, 0, 10, 14, 2, 0, 21, 25]));
/// let other = "---\nkey: v\n---\n";
/// assert_eq!(head_for_js(other, true), HeadForJs::Slices(vec![15, 0, 4, 7, 9, 10]));
/// let quoted = "---\nname: \"R\\\"ole\"\n---\n";
/// assert_eq!(
///     head_for_js(quoted, true),
///     HeadForJs::Json(r#"{"frontmatter":{"name":"R\"ole"},"body":23,"header":["name"],"diagnostics":[]}"#.to_owned())
/// );
/// assert_eq!(head_for_js(&text[..8], false), HeadForJs::NeedMore);
/// ```
pub fn head_for_js(text: &str, complete: bool) -> HeadForJs {
    match slices::plain_head_offsets(text, complete) {
        Some(offsets) => HeadForJs::Slices(offsets),
        None => head_for_js_general(text, complete),
    }
}

/// [`head_for_js`] without the direct read of the usual header (`slices.rs`), whose answers
/// it gives too.
pub(super) fn head_for_js_general(text: &str, complete: bool) -> HeadForJs {
    let delimited = delimit(text, complete);
    if let Delimited::Closed(split, body_start) = &delimited {
        if let Some(entries) = fast::plain_entries(split.block) {
            if let Some(slices) = plain_slices(text, *body_start, &entries) {
                return HeadForJs::Slices(slices);
            }
            let body_offset = byte_to_utf16_index(text, *body_start);
            return HeadForJs::Json(plain_json(&entries, body_offset));
        }
        // The widened fast path (`block.rs`), without trying the plain one a second time, and
        // written straight from its tree (no mapping; its integers all have a JSON form).
        if let Some(entries) = block::parse_entries(split.block) {
            let body_offset = byte_to_utf16_index(text, *body_start);
            if let Some(json) = block_json(&entries, body_offset) {
                return HeadForJs::Json(json);
            }
        }
    }
    let Some(head) = parse_head(delimited) else {
        return HeadForJs::NeedMore;
    };
    let body_offset = byte_to_utf16_index(text, head.body_start);
    match head.to_js_json(body_offset) {
        Some(json) => HeadForJs::Json(json),
        None => HeadForJs::Head(head, body_offset),
    }
}

/// The fast path against the YAML parser on one frontmatter block, for the fuzz equivalence
/// check (`tests/fuzz`, `scripts/fuzz.sh parse_frontmatter`): `None` when the fast path leaves
/// the block to the parser, `Some(Ok(()))` when both read the same mapping, `Some(Err(_))`
/// describing the difference otherwise.
///
/// ```
/// use memdir::frontmatter::fast_path_against_yaml;
/// assert_eq!(fast_path_against_yaml("name: 'it''s'\ndescription: \"\\u00e9\""), Some(Ok(())));
/// assert_eq!(fast_path_against_yaml("a: [1, 2]\nb: |\n  text\n"), Some(Ok(())));
/// assert_eq!(fast_path_against_yaml("a: {b: 1}"), None);
/// ```
#[doc(hidden)]
pub fn fast_path_against_yaml(block: &str) -> Option<Result<(), String>> {
    let fast = fast::parse_plain_block(block)?;
    Some(match super::yaml::parse_lenient(block) {
        Ok(parsed) if parsed.value == Value::Mapping(fast.clone()) => Ok(()),
        Ok(parsed) => Err(format!("fast {fast:?}, YAML {:?}", parsed.value)),
        Err(e) => Err(format!("fast {fast:?}, YAML refuses: {e}")),
    })
}

/// The offsets of [`HeadForJs::Slices`], when every key and value is a piece of `text` and the
/// head is ASCII (so bytes are UTF-16 units, and no U+FFFD stands for a lone surrogate the
/// caller still holds). A `__proto__` key goes as JSON, which `JSON.parse` makes an own
/// property.
fn plain_slices(
    text: &str,
    body_start: usize,
    entries: &[(&str, Cow<'_, str>)],
) -> Option<Vec<u32>> {
    if !text.get(..body_start)?.is_ascii() {
        return None;
    }
    let base = text.as_ptr() as usize;
    let offset = |piece: &str| {
        let start = (piece.as_ptr() as usize).checked_sub(base)?;
        Some([
            u32::try_from(start).ok()?,
            u32::try_from(start + piece.len()).ok()?,
        ])
    };
    let mut out = Vec::with_capacity(2 + 4 * entries.len());
    out.extend([u32::try_from(body_start).ok()?, header_fields(entries)]);
    for (key, value) in entries {
        let (Cow::Borrowed(value), false) = (value, *key == "__proto__") else {
            return None;
        };
        out.extend(key_pair(key, offset(key)?));
        out.extend(offset(value)?);
    }
    Some(out)
}

/// A key's pair in [`HeadForJs::Slices`]: `[i, 0]` for `HEADER_KEYS[i]`, else its offsets.
pub(super) fn key_pair(key: &str, offsets: [u32; 2]) -> [u32; 2] {
    match key {
        "name" => [NAME, 0],
        "description" => [DESCRIPTION, 0],
        "type" => [TYPE, 0],
        _ => offsets,
    }
}

/// The memory fields, in the order of their bits in [`HeadForJs::Slices`] (see `header_fields`).
///
/// ```
/// assert_eq!(memdir::frontmatter::HEADER_KEYS, ["name", "description", "type"]);
/// ```
pub const HEADER_KEYS: [&str; 3] = ["name", "description", "type"];

// The indices of the memory fields in `HEADER_KEYS`, worked out when compiling: the list stays
// the one place their order is set, and the hot paths match on names as before.
const NAME: u32 = field_index("name");
const DESCRIPTION: u32 = field_index("description");
const TYPE: u32 = field_index("type");
const _: () = assert!(
    (NAME as usize) < HEADER_KEYS.len()
        && (DESCRIPTION as usize) < HEADER_KEYS.len()
        && (TYPE as usize) < HEADER_KEYS.len(),
    "a field not in HEADER_KEYS"
);
/// Their bits in the header bits of [`HeadForJs::Slices`] (bit `i` for `HEADER_KEYS[i]`).
pub(super) const NAME_BIT: u32 = 1 << NAME;
pub(super) const DESCRIPTION_BIT: u32 = 1 << DESCRIPTION;
pub(super) const TYPE_BIT: u32 = 1 << TYPE;

/// The index of `key` in [`HEADER_KEYS`] (the length of the list when it is not there).
const fn field_index(key: &str) -> u32 {
    let mut i = 0;
    while i < HEADER_KEYS.len() {
        let (field, key) = (HEADER_KEYS[i].as_bytes(), key.as_bytes());
        let mut same = field.len() == key.len();
        let mut j = 0;
        while same && j < key.len() {
            same = field[j] == key[j];
            j += 1;
        }
        if same {
            return i as u32;
        }
        i += 1;
    }
    i as u32
}

/// Which memory fields a plain block's values give (bit `i` for `HEADER_KEYS[i]`): `name`
/// always, `description` when not empty, `type` when it is one of the four.
fn header_fields(entries: &[(&str, Cow<'_, str>)]) -> u32 {
    entries
        .iter()
        .map(|(key, value)| match *key {
            "name" => NAME_BIT,
            "description" if !value.is_empty() => DESCRIPTION_BIT,
            "type" if MemoryType::parse(value).is_some() => TYPE_BIT,
            _ => 0,
        })
        .fold(0, |bits, bit| bits | bit)
}

/// The JSON of a plain block: every value a string, so the memory fields are read directly.
fn plain_json(entries: &[(&str, Cow<'_, str>)], body_offset: usize) -> String {
    let mut out = String::with_capacity(
        64 + 2 * entries
            .iter()
            .map(|(k, v)| k.len() + v.len() + 6)
            .sum::<usize>(),
    );
    out.push_str("{\"frontmatter\":{");
    for (i, (key, value)) in entries.iter().enumerate() {
        out.push_str(if i > 0 { ",\"" } else { "\"" });
        // Plain keys are identifiers: nothing to escape.
        out.push_str(key);
        out.push_str("\":");
        push_string(&mut out, value);
    }
    out.push_str("},\"body\":");
    push_number(&mut out, body_offset as f64);
    // Each memory field equals its frontmatter value here: name the keys instead of repeating.
    out.push_str(",\"header\":");
    push_strings(&mut out, named_fields(header_fields(entries)));
    out.push_str(",\"diagnostics\":[]}");
    out
}

/// The keys of [`HEADER_KEYS`] whose bits are set in `fields`, in order.
fn named_fields(fields: u32) -> impl Iterator<Item = &'static str> {
    HEADER_KEYS
        .iter()
        .enumerate()
        .filter(move |(bit, _)| fields & (1 << bit) != 0)
        .map(|(_, key)| *key)
}

/// A JSON array of strings.
fn push_strings<'a>(out: &mut String, items: impl IntoIterator<Item = &'a str>) {
    // Writing a string cannot fail: the result is always `Some`.
    let _ = push_joined(out, '[', ']', items, |out, item| {
        push_string(out, item);
        Some(())
    });
}

/// The JSON of a block the widened fast path read, as [`FrontmatterHead::to_js_json`] writes
/// the mapping of it. The header names the frontmatter keys whose values the fields are (as
/// [`plain_json`] does) unless the description is not a string, whose field is then written
/// out as JS stringifies it. (Always `Some`: the tree has no value without a JSON form.)
fn block_json(entries: &[(&str, block::Node<'_>)], body_offset: usize) -> Option<String> {
    use block::Node;
    let mut out = String::with_capacity(256);
    out.push_str("{\"frontmatter\":");
    block::push_entries(&mut out, entries)?;
    out.push_str(",\"body\":");
    push_number(&mut out, body_offset as f64);
    let (mut fields, mut description) = (0, None);
    for (key, value) in entries {
        let text = match value {
            Node::Str(s) => Some(&**s),
            _ => None,
        };
        match (*key, text) {
            ("name", Some(_)) => fields |= NAME_BIT,
            ("description", Some(s)) if !s.is_empty() => fields |= DESCRIPTION_BIT,
            ("description", None) => {
                description = super::truthy_js_string(&value.clone().into_value());
            }
            ("type", Some(s)) if MemoryType::parse(s).is_some() => fields |= TYPE_BIT,
            _ => {}
        }
    }
    match description {
        None => {
            out.push_str(",\"header\":");
            push_strings(&mut out, named_fields(fields));
        }
        Some(description) => {
            // Only `name` and `type` can be named here: write them out too.
            let value = |wanted: &str| {
                entries.iter().find_map(|(key, value)| match value {
                    Node::Str(s) if *key == wanted => Some(&**s),
                    _ => None,
                })
            };
            out.push_str(",\"header\":");
            push_header(
                &mut out,
                value("name").filter(|_| fields & NAME_BIT != 0),
                Some(&description),
                value("type").filter(|_| fields & TYPE_BIT != 0),
            );
        }
    }
    out.push_str(",\"diagnostics\":[]}");
    Some(out)
}

/// `{"name":…,"description":…,"type":…}` with the absent fields left out.
fn push_header(
    out: &mut String,
    name: Option<&str>,
    description: Option<&str>,
    kind: Option<&str>,
) {
    let fields = [("name", name), ("description", description), ("type", kind)];
    let present = fields
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)));
    // Writing strings cannot fail: the result is always `Some`.
    let _ = push_joined(out, '{', '}', present, |out, (key, value)| {
        push_string(out, key);
        out.push(':');
        push_string(out, value);
        Some(())
    });
}

impl FrontmatterHead {
    /// `{"frontmatter":…,"body":<body_offset>,"header":…,"diagnostics":[…]}`, with the body
    /// given as the offset the caller slices at. `None` when a value has no JSON form (NaN,
    /// ±Infinity, -0): the caller then builds the object another way. Keys that are not strings
    /// are left out, as they are everywhere a mapping reaches JS.
    ///
    /// ```
    /// use memdir::frontmatter::parse_frontmatter_head;
    /// let head = parse_frontmatter_head("---\nname: Role\ntags: [a, 1]\n---\nBody", true).unwrap();
    /// assert_eq!(
    ///     head.to_js_json(22).unwrap(),
    ///     r#"{"frontmatter":{"name":"Role","tags":["a",1]},"body":22,"header":{"name":"Role"},"diagnostics":[]}"#
    /// );
    /// let odd = parse_frontmatter_head("---\nx: .nan\n---\n", true).unwrap();
    /// assert!(odd.to_js_json(0).is_none());
    /// ```
    pub fn to_js_json(&self, body_offset: usize) -> Option<String> {
        let mut out = String::with_capacity(256);
        out.push_str("{\"frontmatter\":");
        push_mapping(&mut out, &self.frontmatter)?;
        out.push_str(",\"body\":");
        push_number(&mut out, body_offset as f64);
        out.push_str(",\"header\":");
        let fields = &self.header;
        push_header(
            &mut out,
            fields.name.as_deref(),
            fields.description.as_deref(),
            fields.memory_type.map(MemoryType::as_str),
        );
        out.push_str(",\"diagnostics\":");
        push_strings(&mut out, self.diagnostics.iter().map(String::as_str));
        out.push('}');
        Some(out)
    }
}

fn push_mapping(out: &mut String, map: &Mapping) -> Option<()> {
    let string_keyed = map.iter().filter_map(|(k, v)| Some((k.as_str()?, v)));
    push_joined(out, '{', '}', string_keyed, |out, (key, value)| {
        push_string(out, key);
        out.push(':');
        push_value(out, value)
    })
}

fn push_value(out: &mut String, value: &Value) -> Option<()> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if !x.is_finite() || (x == 0.0 && x.is_sign_negative()) {
                return None;
            }
            push_number(out, x);
        }
        Value::String(s) => push_string(out, s),
        Value::Sequence(items) => push_joined(out, '[', ']', items, push_value)?,
        Value::Mapping(map) => push_mapping(out, map)?,
        Value::Tagged(tagged) => push_value(out, &tagged.value)?,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use crate::frontmatter::parse_frontmatter_head;
    use crate::json::{parse, Json};

    #[test]
    fn strings_are_escaped_and_numbers_printed_as_js() {
        let text = "---\nname: \"a \\\"q\\\" \\\\ \\t\\u0001 é 😀\"\nn: 1e21\nm: 0.1\nk: {x: null, y: true}\n---\n";
        let head = parse_frontmatter_head(text, true).unwrap();
        let json = head.to_js_json(7).unwrap();
        let back = parse(&json).unwrap();
        let fm = back.get("frontmatter").unwrap();
        assert_eq!(
            fm.get("name").and_then(Json::as_str),
            Some("a \"q\" \\ \t\u{1} é 😀")
        );
        assert_eq!(fm.get("n").and_then(Json::as_f64), Some(1e21));
        assert!(json.contains(r#""m":0.1"#), "{json}");
        assert!(json.contains(r#""k":{"x":null,"y":true}"#), "{json}");
        assert_eq!(back.get("body").and_then(Json::as_f64), Some(7.0));
    }

    /// What the JS entry makes of a plain block's answer (offsets sliced, or JSON with named
    /// header keys): the frontmatter and the names of the header keys.
    fn as_js_would(text: &str) -> (Json, Vec<String>) {
        use crate::frontmatter::{head_for_js, HeadForJs, HEADER_KEYS};
        match head_for_js(text, true) {
            HeadForJs::Slices(s) => {
                let piece =
                    |i: usize| Json::String(text[s[i] as usize..s[i + 1] as usize].to_owned());
                let key = |i: usize| match s[i + 1] {
                    0 => HEADER_KEYS[s[i] as usize].to_owned(),
                    _ => piece(i).as_str().unwrap().to_owned(),
                };
                let members = (2..s.len())
                    .step_by(4)
                    .map(|i| (key(i), piece(i + 2)))
                    .collect();
                let named = HEADER_KEYS
                    .iter()
                    .enumerate()
                    .filter(|(bit, _)| s[1] & (1 << bit) != 0)
                    .map(|(_, k)| (*k).to_owned())
                    .collect();
                (Json::Object(members), named)
            }
            HeadForJs::Json(json) => {
                let json = parse(&json).unwrap();
                let named = json.get("header").and_then(Json::as_array).unwrap();
                let named = named
                    .iter()
                    .filter_map(Json::as_str)
                    .map(str::to_owned)
                    .collect();
                (json.get("frontmatter").unwrap().clone(), named)
            }
            other => panic!("{text:?} is plain: {other:?}"),
        }
    }

    /// Plain blocks go straight to offsets or JSON: the header keys they name hold exactly the
    /// fields the mapping route writes out.
    #[test]
    fn plain_blocks_name_the_header_keys_the_mapping_route_writes() {
        let cases: [(&str, &[&str]); 8] = [
            (
                "name: Role\ndescription: d\ntype: user",
                &["name", "description", "type"],
            ),
            ("description: \"\"\ntype: User", &[]),
            ("type: \"feedback\"\nname: \"\"", &["name", "type"]),
            ("other: x\ndescription: \"a \\\"b\\\"\"", &["description"]),
            ("type: Reference", &[]),
            ("name: x\ntype: project\r\n", &["name", "type"]),
            ("name: é\ntype: user", &["name", "type"]),
            ("__proto__: x\nname: y", &["name"]),
        ];
        use crate::frontmatter::{head_for_js, HeadForJs};
        for odd in ["__proto__: x", "name: é"] {
            let answer = head_for_js(&format!("---\n{odd}\n---\n"), true);
            assert!(matches!(answer, HeadForJs::Json(_)), "{odd:?} goes as JSON");
        }
        for (block, keys) in cases {
            let text = format!("---\n{block}\n---\n");
            let (frontmatter, named) = as_js_would(&text);
            assert_eq!(named, keys, "{block:?}");
            let head = parse_frontmatter_head(&text, true).unwrap();
            let via_mapping = parse(&head.to_js_json(0).unwrap()).unwrap();
            assert_eq!(
                Some(&frontmatter),
                via_mapping.get("frontmatter"),
                "{block:?}"
            );
            let header = via_mapping.get("header").unwrap();
            let Json::Object(fields) = header else {
                panic!()
            };
            assert_eq!(fields.len(), keys.len(), "{block:?}");
            for key in keys {
                assert_eq!(header.get(key), frontmatter.get(key), "{block:?}");
            }
        }
    }

    #[test]
    fn values_without_a_json_form_are_refused() {
        for line in ["a: .inf", "a: -.inf", "a: [1, .nan]", "a: -0.0"] {
            let head = parse_frontmatter_head(&format!("---\n{line}\n---\n"), true).unwrap();
            assert!(head.to_js_json(0).is_none(), "{line}");
        }
    }
}
