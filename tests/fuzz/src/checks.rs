//! Invariant checks for memdir's parsers, one function per fuzz target. Each takes raw fuzzer
//! bytes, never panics on its own, and calls `assert!` only on a property the library promises:
//! a failed assertion (or any panic inside memdir) is a finding.
//!
//! Shared by the cargo-fuzz targets (`tests/fuzz/fuzz_targets/*.rs`) and by the native
//! regression test `tests/fuzz_regressions.rs`, which replays `tests/fuzz/regressions/<target>/*`.
//!
//! Every parser that sees untrusted text must also take time linear in it (issue #19): each
//! check repeats its input into a hostile text of two sizes and fails when the larger one costs
//! clearly more than linear growth allows, see [`assert_linear`]. The including crate provides
//! `crate::cpu_time::now()` (the thread's CPU time under the fuzzer, so a busy machine does not
//! count; the wall clock natively).

use memdir::entrypoint::{lines_cut, truncate_counted};
use memdir::frontmatter::{
    fast_path_against_yaml, head_for_js, parse_frontmatter_head, plain_header, sample_block,
    split_frontmatter, HeadForJs,
};
use memdir::json::{parse as parse_json, Json};
use memdir::jsstr::byte_to_utf16_index;
use memdir::jsstr::js_trim;
use memdir::path_key::sanitize_path_key;
use memdir::recall::try_parse_selector_reply;
use memdir::secrets::{redact_secrets, scan_for_secrets, REDACTED};
use memdir::store::head::{first_lines_of_bytes, frontmatter_fields};
use memdir::sync::{HttpRequest, HttpResponse, SyncConfig, SyncState, TeamSync, Transport};
use memdir::{
    format_index_entry, format_memory_file, parse_frontmatter, parse_index_entry,
    truncate_entrypoint, TruncateOptions,
};
use memdir::{Clock, MemFs, NoTelemetry};
use std::borrow::Cow;
use std::cell::Cell;
use std::hint::black_box;
use std::time::Duration;

/// A fuzz target's check: panics on a finding.
pub type Check = fn(&[u8]);

/// The smaller hostile text a timing check builds (bytes, about; two copies of the input at
/// least).
pub const GROWTH_BYTES: usize = 1024;
/// The larger one is this many times bigger.
pub const GROWTH_FACTOR: usize = 8;
/// Linear work grows by [`GROWTH_FACTOR`] (8), quadratic by its square (64): the larger text may
/// take at most this many times the smaller one's time, plus [`GROWTH_NOISE`]. (With 4 and 8, a
/// linear YAML shape measured 9.4× under AddressSanitizer: allocation-heavy code does not scale
/// perfectly there; `regressions/parse_frontmatter/timing-asan-growth-9x`.)
pub const GROWTH_SLACK: u32 = 20;
/// Whatever the smaller text cost, the larger may always take this much per byte: a shape can
/// change between the sizes (YAML that fails at its first control character in the small text
/// and is refused by a cap, then read line by line, in the large one), and linear work at this
/// rate is fine. The old quadratic costs were far above it at 8 KB (the `[` nesting: 1.8 s).
/// Found by fuzzing: `regressions/parse_frontmatter/timing-cap-shape-change` (26× growth, under
/// 1 µs a byte).
pub const LINEAR_FLOOR_PER_BYTE: Duration = Duration::from_micros(2);
/// Timer noise allowed on top of the growth bound.
pub const GROWTH_NOISE: Duration = Duration::from_micros(500);
/// And never more than this per byte of the larger text (plus [`MAX_FIXED_TIME`]): generous,
/// for unoptimised builds and sanitizers, but 5 s on 100 KB.
pub const MAX_TIME_PER_BYTE: Duration = Duration::from_micros(50);
/// The constant part of the per-byte bound.
pub const MAX_FIXED_TIME: Duration = Duration::from_millis(100);

thread_local! {
    static TIMING: Cell<bool> = const { Cell::new(true) };
    static ROUNDS: Cell<u32> = const { Cell::new(3) };
}

/// How many measurements of each size [`assert_linear`] may take before it fails (3 unless
/// set): the native replay measures wall time in a `cargo test` that shares the machine, where
/// noise can last longer than three rounds; it only ever adds time, so more rounds only remove
/// false alarms (a quadratic cost fails every round).
pub fn set_timing_rounds(rounds: u32) {
    ROUNDS.with(|r| r.set(rounds.max(1)));
}

/// Turn the timing half of the checks off (or back on) for this thread: the native random
/// sweep runs thousands of inputs through unoptimised code and checks behaviour only.
pub fn set_timing(on: bool) {
    TIMING.with(|t| t.set(on));
}

/// `head`, then `period` repeated `copies` times, then `tail`.
fn repeated(head: &str, period: &str, tail: &str, copies: usize) -> String {
    let mut out = String::with_capacity(head.len() + copies * period.len() + tail.len());
    out.push_str(head);
    for _ in 0..copies {
        out.push_str(period);
    }
    out.push_str(tail);
    out
}

fn time_of(run: &dyn Fn(&str), text: &str) -> Duration {
    let start = crate::cpu_time::now();
    run(black_box(text));
    crate::cpu_time::now().saturating_sub(start)
}

/// `run` takes time linear in its input on `head + period×k + tail` at two sizes: the larger
/// ([`GROWTH_FACTOR`] times the bytes) costs at most [`GROWTH_SLACK`] times the smaller (or
/// [`LINEAR_FLOOR_PER_BYTE`] per byte, whichever is more) plus [`GROWTH_NOISE`], and at most [`MAX_TIME_PER_BYTE`] per byte plus [`MAX_FIXED_TIME`]. The
/// best of three measurements counts (noise only ever adds time; see [`set_timing_rounds`]).
pub fn assert_linear(what: &str, head: &str, period: &str, tail: &str, run: &dyn Fn(&str)) {
    if period.is_empty() || !TIMING.with(Cell::get) {
        return;
    }
    // Two copies at least, so that both texts have the same shape (one copy of `---\n…` is an
    // unclosed block, two are a block and a body: constant work that is not growth).
    let copies = GROWTH_BYTES.div_ceil(period.len()).max(2);
    let small = repeated(head, period, tail, copies);
    let large = repeated(head, period, tail, copies * GROWTH_FACTOR);
    let per_byte_bound = MAX_TIME_PER_BYTE * u32::try_from(large.len()).unwrap_or(u32::MAX);
    let (mut best_small, mut best_large) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS.with(Cell::get) {
        best_small = best_small.min(time_of(run, &small));
        best_large = best_large.min(time_of(run, &large));
        let floor = LINEAR_FLOOR_PER_BYTE * u32::try_from(large.len()).unwrap_or(u32::MAX);
        let grows_linearly =
            best_large <= best_small.saturating_mul(GROWTH_SLACK).max(floor) + GROWTH_NOISE;
        if grows_linearly && best_large <= per_byte_bound + MAX_FIXED_TIME {
            return;
        }
    }
    panic!(
        "{what} is not linear: {} bytes took {best_large:?}, {} bytes {best_small:?} \
         (period {period:?})",
        large.len(),
        small.len()
    );
}

/// The fuzz targets, by name (the names of `tests/fuzz/regressions/` subfolders too).
pub const TARGETS: [(&str, Check); 9] = [
    ("parse_frontmatter", check_parse_frontmatter),
    ("frontmatter_forms", check_frontmatter_forms),
    ("truncate_entrypoint", check_truncate_entrypoint),
    ("parse_index_entry", check_parse_index_entry),
    ("sanitize_path_key", check_sanitize_path_key),
    ("scan_for_secrets", check_scan_for_secrets),
    ("parse_selector_reply", check_parse_selector_reply),
    ("parse_json", check_parse_json),
    ("sync_response", check_sync_response),
];

/// Fuzzer bytes as text: valid UTF-8 as is, anything else with replacement characters (the JS
/// boundary hands the library strings, so invalid UTF-8 never reaches these functions).
fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// `parse_frontmatter` never panics; the body is the text after the closing delimiter; a parsed
/// header survives `format_memory_file` → `parse_frontmatter` unchanged.
///
/// Timing: the input repeated inside a `---` block, and repeated as a whole file.
pub fn check_parse_frontmatter(data: &[u8]) {
    let text = text(data);
    let parse = |t: &str| {
        black_box(parse_frontmatter(t));
        black_box(head_for_js(t, true));
    };
    assert_linear("parse_frontmatter", "---\n", &text, "\n---\n", &parse);
    assert_linear("parse_frontmatter (whole)", "", &text, "", &parse);
    let parsed = parse_frontmatter(&text);
    // The fast paths read every block they take exactly as serde_yaml does (issue #17: quoted
    // scalars over lines, block scalars, sequences, nested mappings too; `frontmatter_forms`
    // builds those shapes on purpose). Both the whole input as a block and the block of its
    // frontmatter.
    for block in [Some(&*text), split_frontmatter(&text).map(|s| s.block)]
        .into_iter()
        .flatten()
    {
        if let Some(Err(difference)) = fast_path_against_yaml(block) {
            panic!("fast path differs from serde_yaml on {block:?}: {difference}");
        }
    }
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
    check_js_answer(&text);
    // The scan's in-place header, where it answers, is the parse's; so are the scan's fields of
    // the raw bytes (its first 30 lines).
    if let Some(header) = plain_header(&text, true) {
        assert_eq!(header, parsed.header, "in-place header");
    }
    let lines = first_lines_of_bytes(data, 30);
    assert_eq!(
        frontmatter_fields(data, 30),
        parse_frontmatter(&lines).header,
        "scan fields"
    );
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
        if let Some(header) = plain_header(&text[..cut], false) {
            assert_eq!(header, parsed.header, "in-place header from {cut} bytes");
        }
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

/// The fast paths against serde_yaml on a block in one of the forms they read (or a near miss),
/// built from the fuzzer's bytes by [`sample_block`]: multi-line double- and single-quoted
/// scalars with escapes, block and folded scalars with chomping and indentation indicators,
/// block and flow sequences, nested mappings, comments, trailing spaces, tabs, CRLF, non-ASCII.
/// Whatever the fast path takes must be serde_yaml's mapping, values and types; the JS entry's
/// answer must be the mapping's.
pub fn check_frontmatter_forms(data: &[u8]) {
    let block = sample_block(data);
    if let Some(Err(difference)) = fast_path_against_yaml(&block) {
        panic!("fast path differs from serde_yaml on {block:?}: {difference}");
    }
    check_js_answer(&format!("---\n{block}---\nbody"));
}

/// The JS entry's answer (offsets, or JSON straight from the text for blocks the fast paths
/// read) is the mapping route's JSON.
fn check_js_answer(text: &str) {
    if let Some(head) = parse_frontmatter_head(text, true) {
        let offset = byte_to_utf16_index(text, head.body_start);
        match (head_for_js(text, true), head.to_js_json(offset)) {
            (HeadForJs::Json(direct), Some(via_mapping)) => {
                assert_eq!(
                    with_header_expanded(&direct),
                    parse_json(&via_mapping).ok(),
                    "JSON for JS: {direct}"
                );
            }
            (HeadForJs::Slices(slices), Some(via_mapping)) => {
                assert_eq!(
                    sliced(text, &slices),
                    with_header_expanded(&via_mapping),
                    "offsets for JS: {slices:?}"
                );
            }
            (HeadForJs::Head(direct, at), None) => assert_eq!((direct, at), (head, offset)),
            (other, expected) => panic!("head_for_js gave {other:?}, expected {expected:?}"),
        }
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
/// index is ASCII; a memory field's key as its index), as the JSON the mapping route writes.
fn sliced(text: &str, slices: &[u32]) -> Option<Json> {
    let units: Vec<u16> = text.encode_utf16().collect();
    let piece = |i: usize| {
        let range = *slices.get(i)? as usize..*slices.get(i + 1)? as usize;
        Some(String::from_utf16_lossy(units.get(range)?))
    };
    // A key `[i, 0]` is the i-th memory field's name.
    let fields = ["name", "description", "type"];
    let key = |i: usize| match *slices.get(i + 1)? {
        0 => Some((*fields.get(*slices.get(i)? as usize)?).to_owned()),
        _ => piece(i),
    };
    let mut frontmatter = Vec::new();
    for i in (2..slices.len()).step_by(4) {
        frontmatter.push((key(i)?, Json::String(piece(i + 2)?)));
    }
    let frontmatter = Json::Object(frontmatter);
    let flags = *slices.get(1)?;
    let header = fields
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
///
/// Timing: the input repeated after `- [`, and an index of it repeated.
pub fn check_parse_index_entry(data: &[u8]) {
    let line = text(data);
    let parse = |t: &str| {
        black_box(parse_index_entry(t));
    };
    assert_linear("parse_index_entry", "- [", &line, "", &parse);
    let index = |t: &str| {
        black_box(memdir::index_entry::index_entries(t));
    };
    assert_linear("index_entries", "", &line, "", &index);
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
    let select = |t: &str| {
        black_box(try_parse_selector_reply(t, &candidates, limit));
    };
    assert_linear("try_parse_selector_reply", "", reply, "", &select);
    assert_linear("try_parse_selector_reply ({)", "{", reply, "}", &select);
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

/// The JSON parser never panics; a value it accepts prints as JSON that parses back to a value
/// printing the same way.
///
/// Timing: the input repeated, as is and inside an array.
pub fn check_parse_json(data: &[u8]) {
    let text = text(data);
    let parse = |t: &str| {
        let _ = black_box(parse_json(t));
    };
    assert_linear("json::parse", "", &text, "", &parse);
    assert_linear("json::parse ([)", "[", &text, "]", &parse);
    let Ok(value) = parse_json(&text) else {
        return;
    };
    let printed = value.to_string();
    let Ok(again) = parse_json(&printed) else {
        panic!("printed JSON does not parse: {printed:?}")
    };
    assert_eq!(again.to_string(), printed, "printing is stable");
}

/// A server answering every request with one status and body.
struct Canned {
    status: u16,
    body: String,
}

impl Transport for Canned {
    async fn send(&self, _request: HttpRequest) -> memdir::host::HostResult<HttpResponse> {
        Ok(HttpResponse {
            status: self.status,
            headers: vec![("ETag".to_owned(), "\"e\"".to_owned())],
            body: self.body.clone(),
        })
    }
}

/// A clock whose sleeps return at once.
struct Instant0;

impl Clock for Instant0 {
    fn now_ms(&self) -> f64 {
        0.0
    }
    async fn sleep(&self, _ms: u32) {}
}

const TEAM_DIR: &str = "/m/team/";

/// A team pull, then a push of one local file, against a server answering `body` with
/// `status`; what the file system holds afterwards.
fn sync_with(status: u16, body: &str) -> Vec<(String, Vec<u8>)> {
    let fs = MemFs::new();
    fs.insert_file("/m/team/local.md", "---\nname: l\n---\nlocal\n");
    let sync = TeamSync {
        fs: &fs,
        transport: Canned {
            status,
            body: body.to_owned(),
        },
        clock: Instant0,
        telemetry: NoTelemetry,
        config: SyncConfig::new("https://h.example", "acme/app", TEAM_DIR),
    };
    let mut state = SyncState::default();
    let _ = memdir::future::block_on(sync.pull(&mut state));
    let _ = memdir::future::block_on(sync.push(&mut state));
    fs.snapshot()
}

/// Team sync never panics on a server's answer and writes nothing outside the team directory.
///
/// Input layout: byte 0 picks the status (200, 412 or 413, which the client parses); the rest
/// is the body. Timing: the rest repeated as a body, and as the entries of an otherwise valid
/// answer.
pub fn check_sync_response(data: &[u8]) {
    let (status, rest) = match data {
        [b0, rest @ ..] => ([200, 412, 413][usize::from(*b0 % 3)], rest),
        [] => (200, data),
    };
    let body = text(rest);
    for (path, _) in sync_with(status, &body) {
        assert!(
            path.starts_with(TEAM_DIR),
            "wrote {path:?} outside the team directory"
        );
    }
    let run = |t: &str| {
        black_box(sync_with(status, t));
    };
    assert_linear("sync response", "", &body, "", &run);
    assert_linear(
        "sync response (entries)",
        "{\"checksum\":\"c\",\"content\":{\"entries\":{",
        &body,
        "\"z.md\":\"z\"}}}",
        &run,
    );
}
