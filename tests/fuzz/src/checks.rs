//! Invariant checks for memdir's parsers, one function per fuzz target. Each takes raw fuzzer
//! bytes, never panics on its own, and calls `assert!` only on a property the library promises:
//! a failed assertion (or any panic inside memdir) is a finding.
//!
//! Shared by the cargo-fuzz targets (`tests/fuzz/fuzz_targets/*.rs`) and by the native
//! regression test `tests/fuzz_regressions.rs`, which replays `tests/fuzz/regressions/<target>/*`.

use memdir::entrypoint::{lines_cut, truncate_counted};
use memdir::frontmatter::{head_for_js, parse_frontmatter_head, split_frontmatter, HeadForJs};
use memdir::json::{parse as parse_json, Json};
use memdir::jsstr::byte_to_utf16_index;
use memdir::jsstr::js_trim;
use memdir::path_key::sanitize_path_key;
use memdir::recall::try_parse_selector_reply;
use memdir::secrets::{redact_secrets, scan_for_secrets, REDACTED};
use memdir::{
    format_index_entry, format_memory_file, parse_frontmatter, parse_index_entry,
    truncate_entrypoint, TruncateOptions,
};
use std::borrow::Cow;

/// A fuzz target's check: panics on a finding.
pub type Check = fn(&[u8]);

/// The fuzz targets, by name (the names of `tests/fuzz/regressions/` subfolders too).
pub const TARGETS: [(&str, Check); 6] = [
    ("parse_frontmatter", check_parse_frontmatter),
    ("truncate_entrypoint", check_truncate_entrypoint),
    ("parse_index_entry", check_parse_index_entry),
    ("sanitize_path_key", check_sanitize_path_key),
    ("scan_for_secrets", check_scan_for_secrets),
    ("parse_selector_reply", check_parse_selector_reply),
];

/// Fuzzer bytes as text: valid UTF-8 as is, anything else with replacement characters (the JS
/// boundary hands the library strings, so invalid UTF-8 never reaches these functions).
fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// `parse_frontmatter` never panics; the body is the text after the closing delimiter; a parsed
/// header survives `format_memory_file` → `parse_frontmatter` unchanged.
pub fn check_parse_frontmatter(data: &[u8]) {
    let text = text(data);
    let parsed = parse_frontmatter(&text);
    match split_frontmatter(&text) {
        Some(split) => assert_eq!(parsed.body, split.body, "body is the split body"),
        None => assert_eq!(parsed.body, *text, "no frontmatter: the whole text is body"),
    }
    let written = format_memory_file(&parsed.header, &parsed.body);
    let again = parse_frontmatter(&written);
    assert_eq!(
        again.header, parsed.header,
        "header round trip via {written:?}"
    );
    assert_eq!(again.body, parsed.body, "body round trip");
    // The JS entry's JSON (straight from the text for plain blocks) is the mapping's JSON.
    if let Some(head) = parse_frontmatter_head(&text, true) {
        let offset = byte_to_utf16_index(&text, head.body_start);
        match (head_for_js(&text, true), head.to_js_json(offset)) {
            (HeadForJs::Json(direct), Some(via_mapping)) => {
                assert_eq!(
                    with_header_expanded(&direct),
                    parse_json(&via_mapping).ok(),
                    "JSON for JS: {direct}"
                );
            }
            (HeadForJs::Slices(slices), Some(via_mapping)) => {
                assert_eq!(
                    sliced(&text, &slices),
                    with_header_expanded(&via_mapping),
                    "offsets for JS: {slices:?}"
                );
            }
            (HeadForJs::Head(direct, at), None) => assert_eq!((direct, at), (head, offset)),
            (other, expected) => panic!("head_for_js gave {other:?}, expected {expected:?}"),
        }
    }
    // The JS entry's path: prefixes first. An answer from a prefix is the whole file's answer.
    let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let step = (boundaries.len() / 24).max(1);
    for &cut in boundaries.iter().step_by(step) {
        let Some(head) = parse_frontmatter_head(&text[..cut], false) else {
            continue;
        };
        assert_eq!(
            head.frontmatter, parsed.frontmatter,
            "mapping from {cut} bytes"
        );
        assert_eq!(head.header, parsed.header, "header from {cut} bytes");
        assert_eq!(
            head.diagnostics, parsed.diagnostics,
            "notes from {cut} bytes"
        );
        assert_eq!(
            &text[head.body_start..],
            parsed.body,
            "body from {cut} bytes"
        );
    }
}

/// A `head_for_js` JSON whose `header` names frontmatter keys, with those values copied in (what
/// the JS entry does).
fn with_header_expanded(json: &str) -> Option<Json> {
    let Json::Object(mut members) = parse_json(json).ok()? else {
        return None;
    };
    let frontmatter = members.first().map(|(_, v)| v.clone())?;
    for (key, value) in &mut members {
        if let (true, Json::Array(keys)) = (key == "header", &*value) {
            let fields = keys
                .iter()
                .filter_map(|k| {
                    Some((
                        k.as_str()?.to_owned(),
                        frontmatter.get(k.as_str()?)?.clone(),
                    ))
                })
                .collect();
            *value = Json::Object(fields);
        }
    }
    Some(Json::Object(members))
}

/// What the JS entry builds from [`HeadForJs::Slices`] offsets (UTF-16 units; the head they
/// index is ASCII), as the JSON the mapping route writes.
fn sliced(text: &str, slices: &[u32]) -> Option<Json> {
    let units: Vec<u16> = text.encode_utf16().collect();
    let piece = |i: usize| {
        let range = *slices.get(i)? as usize..*slices.get(i + 1)? as usize;
        Some(String::from_utf16_lossy(units.get(range)?))
    };
    let mut frontmatter = Vec::new();
    for i in (2..slices.len()).step_by(4) {
        frontmatter.push((piece(i)?, Json::String(piece(i + 2)?)));
    }
    let frontmatter = Json::Object(frontmatter);
    let flags = *slices.get(1)?;
    let header = ["name", "description", "type"]
        .iter()
        .enumerate()
        .filter(|(bit, _)| flags & (1 << bit) != 0)
        .map(|(_, key)| Some(((*key).to_owned(), frontmatter.get(key)?.clone())))
        .collect::<Option<Vec<_>>>()?;
    Some(Json::Object(vec![
        ("frontmatter".to_owned(), frontmatter),
        ("body".to_owned(), Json::Number(f64::from(*slices.first()?))),
        ("header".to_owned(), Json::Object(header)),
        ("diagnostics".to_owned(), Json::Array(Vec::new())),
    ]))
}

/// `truncate_entrypoint` matches the reference algorithm (reference §3.1) computed here over
/// UTF-16 units, except that a hard cut never leaves half a surrogate pair.
///
/// The first byte picks the caps: even → the defaults; odd → small caps from the next two bytes
/// (so short inputs reach every branch).
pub fn check_truncate_entrypoint(data: &[u8]) {
    let (options, rest) = match data {
        [b0, b1, b2, rest @ ..] if b0 % 2 == 1 => (
            TruncateOptions {
                max_lines: usize::from(*b1 % 16),
                max_units: usize::from(*b2),
            },
            rest,
        ),
        [_, rest @ ..] => (TruncateOptions::default(), rest),
        [] => (TruncateOptions::default(), data),
    };
    let raw = text(rest);
    let got = truncate_entrypoint(&raw, &options);
    let trimmed = js_trim(&raw);
    let units: Vec<u16> = trimmed.encode_utf16().collect();
    let line_count = trimmed.split('\n').count();
    // The JS entry's path: counts measured in JS, only `max_units + 1` units handed over (a
    // surrogate pair cut by that slice arrives as U+FFFD, as wasm-bindgen passes it).
    let prefix_units = units
        .get(..options.max_units.saturating_add(1))
        .unwrap_or(&units);
    let prefix = String::from_utf16_lossy(prefix_units);
    let counted = truncate_counted(&prefix, line_count, units.len(), &options);
    assert_eq!(
        counted, got,
        "truncate_counted over a prefix equals truncate_entrypoint"
    );
    assert_eq!(got.line_count, line_count, "lineCount");
    assert_eq!(got.byte_count, units.len(), "byteCount");
    assert_eq!(got.was_line_truncated, line_count > options.max_lines);
    assert_eq!(got.was_byte_truncated, units.len() > options.max_units);
    if !got.was_line_truncated && !got.was_byte_truncated {
        assert_eq!(
            got.content, trimmed,
            "untruncated content is the trimmed text"
        );
        assert!(lines_cut(&raw, &options).is_empty());
        return;
    }
    // Reference: first max_lines lines re-joined, then lastIndexOf("\n", max) / hard cut.
    let mut kept: Vec<u16> = if got.was_line_truncated {
        let lines: Vec<&str> = trimmed.split('\n').take(options.max_lines).collect();
        lines.join("\n").encode_utf16().collect()
    } else {
        units.clone()
    };
    let mut hard_cut = false;
    if kept.len() > options.max_units {
        let from = options.max_units.min(kept.len() - 1);
        let cut_at = kept
            .get(..=from)
            .and_then(|head| head.iter().rposition(|&u| u == u16::from(b'\n')));
        match cut_at {
            Some(at) if at > 0 => kept.truncate(at),
            _ => {
                kept.truncate(options.max_units);
                hard_cut = true;
            }
        }
    }
    let marker = "\n\n> WARNING: MEMORY.md is ";
    let Some(warning_at) = got.content.rfind(marker) else {
        panic!("truncated content without a warning: {:?}", got.content)
    };
    let ours: Vec<u16> = got.content[..warning_at].encode_utf16().collect();
    let split_pair = hard_cut && kept.last().is_some_and(|u| (0xD800..0xDC00).contains(u));
    if split_pair {
        assert_eq!(
            ours,
            kept[..kept.len() - 1],
            "hard cut backs off a surrogate pair"
        );
    } else {
        assert_eq!(ours, kept, "kept text equals the reference's");
    }
}

/// `parse_index_entry` never panics; an entry it returns, formatted canonically, parses back to
/// itself when the fields are representable: no `>)` in the target, and no line break in any
/// field (a lone `\r` or U+2028 inside a line is accepted by the parser, and the formatter
/// documents that it turns line breaks into spaces; fuzz finding
/// `regressions/parse_index_entry/title-with-lone-cr`).
pub fn check_parse_index_entry(data: &[u8]) {
    let line = text(data);
    let Some(entry) = parse_index_entry(&line) else {
        return;
    };
    let formatted = format_index_entry(&entry);
    assert!(!formatted.contains('\n'), "formatted entry is one line");
    let breaks = ['\n', '\r', '\u{2028}', '\u{2029}'];
    let one_line = [&entry.title, &entry.file, &entry.hook]
        .iter()
        .all(|field| !field.contains(breaks));
    if entry.file.contains(">)") || entry.file.is_empty() || !one_line {
        return;
    }
    let Some(back) = parse_index_entry(&formatted) else {
        panic!("formatted entry does not parse: {formatted:?} (from {entry:?})")
    };
    assert_eq!(back, entry, "round trip through {formatted:?}");
}

/// `sanitize_path_key` never panics; an accepted key is returned unchanged and holds no NUL, no
/// backslash and no leading `/`; a rejection is a `PATH_*` error that quotes the key.
pub fn check_sanitize_path_key(data: &[u8]) {
    let key = text(data);
    match sanitize_path_key(&key) {
        Ok(same) => {
            assert_eq!(same, &*key, "accepted key is returned as is");
            assert!(!key.contains('\0') && !key.contains('\\') && !key.starts_with('/'));
        }
        Err(error) => {
            let code = format!("{:?}", error.code);
            assert!(code.starts_with("Path"), "code {code}");
            // A key holding a secret is quoted with the secret redacted (#19 item 13).
            if scan_for_secrets(&key).is_empty() {
                assert!(error.message.contains(&*key), "message quotes the key");
            } else {
                assert!(
                    error.message.contains(REDACTED),
                    "the quoted secret is redacted"
                );
            }
        }
    }
}

/// `scan_for_secrets` and `redact_secrets` never panic; text without findings is left as is by
/// redaction, and redacted text no longer contains any run the scanner flagged as a whole input.
pub fn check_scan_for_secrets(data: &[u8]) {
    let content = text(data);
    let found = scan_for_secrets(&content);
    let redacted = redact_secrets(&content);
    if found.is_empty() {
        assert_eq!(redacted, *content, "nothing found, nothing redacted");
    } else {
        assert!(redacted.contains(REDACTED), "a finding is redacted");
    }
    let mut ids: Vec<&str> = found.iter().map(|f| f.rule_id).collect();
    ids.dedup();
    assert_eq!(ids.len(), found.len(), "one finding per rule");
}

/// The selector reply parser never panics; what it keeps is a duplicate-free subset of the
/// candidates, at most `limit` long, in reply order.
///
/// Input layout: byte 0 is the limit (mod 8); then the reply up to the first NUL; then
/// NUL-separated candidate names.
pub fn check_parse_selector_reply(data: &[u8]) {
    let (limit, rest) = match data {
        [b0, rest @ ..] => (usize::from(*b0 % 8), rest),
        [] => (5, data),
    };
    let all = text(rest);
    let mut parts = all.split('\0');
    let reply = parts.next().unwrap_or_default();
    let candidates: Vec<&str> = parts.collect();
    let Some(chosen) = try_parse_selector_reply(reply, &candidates, limit) else {
        return;
    };
    assert!(chosen.len() <= limit, "at most limit");
    for (i, name) in chosen.iter().enumerate() {
        assert!(candidates.contains(&name.as_str()), "only candidates");
        assert!(!chosen[..i].contains(name), "no duplicates");
        assert!(reply.contains(&**name) || name.is_empty() || reply.contains('\\'));
    }
}
