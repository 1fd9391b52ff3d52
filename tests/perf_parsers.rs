//! Benchmark (issue #19 item 1): time per byte of every parser that reads untrusted text, over
//! hostile shapes at six doubling sizes (4 KB to 128 KB). Linear parsers keep the time per byte flat; a
//! quadratic one doubles it at each step. Not a timed test: it prints, it does not assert.
//!
//! ```text
//! cargo test --release --test perf_parsers -- --ignored --nocapture
//! ```
//!
//! A shape whose single call passes `STOP_AFTER` is not grown further (so a regression prints
//! its first figures instead of freezing the run).

mod common;

use common::{block_on, TestClock};
use memdir::frontmatter::{head_for_js, parse_frontmatter_head};
use memdir::host::HostResult;
use memdir::index_entry::index_entries;
use memdir::sync::{HttpRequest, HttpResponse, SyncConfig, SyncState, TeamSync, Transport};
use memdir::{parse_frontmatter, parse_index_entry, MemFs, NoTelemetry};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Smallest input of each shape, in bytes (about); four doublings follow.
const START_BYTES: usize = 4 * 1024;
/// Doublings after the first size.
const DOUBLINGS: u32 = 5;
/// Each measurement repeats the call for about this long...
const BATCH: Duration = Duration::from_millis(30);
/// ...and the best of this many counts.
const BATCHES: u32 = 5;
/// One call slower than this ends the shape's series.
const STOP_AFTER: Duration = Duration::from_secs(5);

/// `unit` repeated to about `bytes`, between `head` and `tail`.
fn shape(head: &str, unit: &str, tail: &str, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + head.len() + tail.len());
    text.push_str(head);
    text.push_str(&unit.repeat(bytes / unit.len().max(1)));
    text.push_str(tail);
    text
}

/// Numbered `key{i}: value` lines (distinct keys) to about `bytes`.
fn block_keys(head: &str, line: impl Fn(usize) -> String, tail: &str, bytes: usize) -> String {
    let mut text = String::from(head);
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&line(i));
        i += 1;
    }
    text.push_str(tail);
    text
}

/// A transport that answers every request with one body.
struct Canned(String);

impl Transport for Canned {
    async fn send(&self, _request: HttpRequest) -> HostResult<HttpResponse> {
        Ok(HttpResponse {
            status: 200,
            headers: Vec::new(),
            body: self.0.clone(),
        })
    }
}

fn pull(body: &str) {
    let fs = MemFs::new();
    let clock = TestClock::new(0.0);
    let sync = TeamSync {
        fs: &fs,
        transport: Canned(body.to_owned()),
        clock: &clock,
        telemetry: NoTelemetry,
        config: SyncConfig::new("https://h.example", "acme/app", "/m/team/"),
    };
    let _ = black_box(block_on(sync.pull(&mut SyncState::default())));
}

type Parser = fn(&str);

fn frontmatter(text: &str) {
    black_box(parse_frontmatter(text));
    black_box(head_for_js(text, true));
    black_box(parse_frontmatter_head(text, false));
}

fn index_line(text: &str) {
    black_box(parse_index_entry(text));
}

fn index(text: &str) {
    black_box(index_entries(text));
}

fn json(text: &str) {
    let _ = black_box(memdir::json::parse(text));
}

/// Each shape: name, parser, and the input of about `n` bytes.
#[allow(clippy::type_complexity)]
fn shapes() -> Vec<(&'static str, Parser, Box<dyn Fn(usize) -> String>)> {
    let fm = |head: &'static str, unit: &'static str, tail: &'static str| {
        Box::new(move |n| {
            shape(
                &format!("---\n{head}"),
                unit,
                &format!("{tail}\n---\nbody\n"),
                n,
            )
        }) as Box<dyn Fn(usize) -> String>
    };
    vec![
        (
            "index: - [t]( + 'a)'*n",
            index_line,
            Box::new(|n| shape("- [t](", "a)", "", n)),
        ),
        (
            "index: - [ + '](a'*n",
            index_line,
            Box::new(|n| shape("- [", "](a", "", n)),
        ),
        (
            "index: - [ + '](<a>)x'*n",
            index_line,
            Box::new(|n| shape("- [", "](<a>)x", "", n)),
        ),
        (
            "index: - [t](< + ' '*n + >)x",
            index_line,
            Box::new(|n| shape("- [t](<", " ", ">)x>)", n)),
        ),
        (
            "index: - [ + '\\\\'*n + ](",
            index_line,
            Box::new(|n| shape("- [", "\\", "](a", n)),
        ),
        (
            "index file: n lines '- [t](a)a)'",
            index,
            Box::new(|n| shape("", "- [t](a)a)a)\n", "", n)),
        ),
        (
            "frontmatter: d: [ + 'a '*n (unclosed)",
            frontmatter,
            fm("d: [", "a ", ""),
        ),
        (
            "frontmatter: d: [ + 'a, '*n (unclosed)",
            frontmatter,
            fm("d: [", "a, ", ""),
        ),
        (
            "frontmatter: '['*n (nesting)",
            frontmatter,
            fm("d: ", "[", ""),
        ),
        (
            "frontmatter: '{a: '*n (nesting)",
            frontmatter,
            fm("d: ", "{a: ", ""),
        ),
        (
            "frontmatter: d: { + 'a: b, '*n",
            frontmatter,
            fm("d: {", "a: b, ", ""),
        ),
        (
            "frontmatter: '['*128 + 'a, '*n",
            frontmatter,
            Box::new(|n| {
                let head = format!("---\nd: {}", "[".repeat(128));
                shape(&head, "a, ", "\n---\nbody\n", n)
            }),
        ),
        (
            "frontmatter: '[a, '*n (nesting)",
            frontmatter,
            fm("d: ", "[a, ", ""),
        ),
        (
            "frontmatter: plain keys k<i>: v",
            frontmatter,
            Box::new(|n| block_keys("---\n", |i| format!("k{i}: value\n"), "---\nbody\n", n)),
        ),
        (
            "frontmatter: YAML keys k<i>: [v]",
            frontmatter,
            Box::new(|n| block_keys("---\n", |i| format!("k{i}: [v]\n"), "---\nbody\n", n)),
        ),
        (
            "frontmatter: retry keys k<i>: a: b",
            frontmatter,
            Box::new(|n| block_keys("---\n", |i| format!("k{i}: a: b @\n"), "---\nbody\n", n)),
        ),
        (
            "frontmatter: '? k<i>' complex keys",
            frontmatter,
            Box::new(|n| block_keys("---\n", |i| format!("? k{i}\n: v\n"), "---\nbody\n", n)),
        ),
        (
            "frontmatter: block nesting 'a:\\n '*",
            frontmatter,
            Box::new(|n| {
                block_keys(
                    "---\n",
                    |i| format!("{}a:\n", " ".repeat(i % 64)),
                    "---\nbody\n",
                    n,
                )
            }),
        ),
        (
            "frontmatter: d: \" + '\\\\\"'*n + \"",
            frontmatter,
            fm("d: \"", "\\\"", "\""),
        ),
        (
            "frontmatter: d: \" + '\\\\u00e9'*n + \"",
            frontmatter,
            fm("d: \"", "\\u00e9", "\""),
        ),
        (
            "frontmatter: d: ' + 'a'''*n + '",
            frontmatter,
            fm("d: '", "a''", "'"),
        ),
        (
            "frontmatter: d: | + lines",
            frontmatter,
            fm("d: |\n", "  line\n", ""),
        ),
        (
            "frontmatter: '&a a '*n anchors",
            frontmatter,
            Box::new(|n| block_keys("---\n", |i| format!("k{i}: &a{i} v\n"), "---\nbody\n", n)),
        ),
        (
            "frontmatter: unclosed ---, lines",
            frontmatter,
            Box::new(|n| shape("---\n", "a: b\n", "", n)),
        ),
        ("json: '['*n", json, Box::new(|n| shape("", "[", "", n))),
        (
            "json: '[1,'*n",
            json,
            Box::new(|n| shape("[", "1,", "1]", n)),
        ),
        (
            "json: '{\"a\":1,'*n",
            json,
            Box::new(|n| shape("{", "\"a\":1,", "\"a\":1}", n)),
        ),
        (
            "json: string of \\u00e9",
            json,
            Box::new(|n| shape("\"", "\\u00e9", "\"", n)),
        ),
        (
            "json: string of \\ud800",
            json,
            Box::new(|n| shape("\"", "\\ud800", "\"", n)),
        ),
        (
            "json: number of n digits",
            json,
            Box::new(|n| shape("", "1", "", n)),
        ),
        (
            "sync: n entries",
            pull,
            Box::new(|n| {
                block_keys(
                    "{\"checksum\":\"x\",\"content\":{\"entries\":{",
                    |i| format!("\"f{i}.md\":\"---\\nname: a\\n---\\nx\","),
                    "\"z.md\":\"z\"}}}",
                    n,
                )
            }),
        ),
        (
            "sync: n checksums",
            pull,
            Box::new(|n| {
                block_keys(
                    "{\"content\":{\"entries\":{},\"entryChecksums\":{",
                    |i| format!("\"f{i}.md\":\"sha256:00\","),
                    "\"z\":\"z\"}}}",
                    n,
                )
            }),
        ),
        (
            "sync: n duplicate keys",
            pull,
            Box::new(|n| {
                shape(
                    "{\"content\":{\"entries\":{",
                    "\"a.md\":\"x\",",
                    "\"a.md\":\"y\"}}}",
                    n,
                )
            }),
        ),
    ]
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn parsers_take_time_linear_in_their_input() {
    println!(
        "{:<42} ns/byte at 4, 8, 16, 32, 64, 128 KB; last/first",
        "shape"
    );
    // PERF_FILTER=frontmatter runs only the shapes whose name contains it.
    let filter = std::env::var("PERF_FILTER").unwrap_or_default();
    for (name, parse, make) in shapes() {
        if !name.contains(&filter) {
            continue;
        }
        let mut row = Vec::new();
        for step in 0..=DOUBLINGS {
            let text = make(START_BYTES << step);
            // One call first: a slow shape stops here. Otherwise batches of calls of about
            // `BATCH` each, the best batch counting (the machine is shared: noise only adds).
            let start = Instant::now();
            parse(black_box(&text));
            let once = start.elapsed();
            let calls = (BATCH.as_nanos() / once.as_nanos().max(1)).clamp(1, 10_000) as u32;
            let mut best = once;
            for _ in 0..if once > STOP_AFTER { 0 } else { BATCHES } {
                let start = Instant::now();
                for _ in 0..calls {
                    parse(black_box(&text));
                }
                best = best.min(start.elapsed() / calls);
            }
            row.push(best.as_nanos() as f64 / text.len() as f64);
            if best > STOP_AFTER {
                break;
            }
        }
        let cells: Vec<String> = row.iter().map(|ns| format!("{ns:>8.1}")).collect();
        let growth = row.last().unwrap() / row.first().unwrap();
        println!("{name:<42} {} ; x{growth:.1}", cells.join(""));
    }
}
