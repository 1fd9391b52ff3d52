//! Native timings of the pure hot paths over 10,000 synthetic memories (issues #8, #13): the
//! lexical ranker (design §7: under 10 ms a query; its incremental updates), `parse_frontmatter` and entrypoint truncation. The
//! Node benchmark (benches/run.mjs) measures the same paths through the wasm boundary; the
//! difference between the two is the boundary's cost. Ignored by default; run in release:
//!
//! ```sh
//! cargo test --release --test bench_ranker -- --ignored --nocapture --test-threads=1
//! ```

mod common;

use common::{Tap, TestClock};
use memdir::recall::{rank_memories, RankerDoc, RankerIndex, RankerParams};
use memdir::{parse_frontmatter, truncate_entrypoint, MemoryHeader, MemoryType, TruncateOptions};
use std::time::Instant;

const WORDS: &[&str] = &[
    "api",
    "auth",
    "build",
    "cache",
    "commit",
    "config",
    "database",
    "deploy",
    "docker",
    "error",
    "feature",
    "flag",
    "fix",
    "frontend",
    "go",
    "graph",
    "hook",
    "index",
    "lint",
    "log",
    "merge",
    "migration",
    "mock",
    "monitor",
    "network",
    "oauth",
    "parser",
    "pipeline",
    "queue",
    "react",
    "redis",
    "release",
    "review",
    "rust",
    "schema",
    "script",
    "secret",
    "server",
    "session",
    "shell",
    "sql",
    "test",
    "token",
    "trace",
    "type",
    "user",
    "vendor",
    "wasm",
    "worker",
    "yaml",
];

struct Rng(u64);

impl Rng {
    fn word(&mut self) -> &'static str {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        WORDS[(self.0 >> 33) as usize % WORDS.len()]
    }

    fn words(&mut self, n: usize) -> String {
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
}

/// The text of memory `i`, shaped like benches/generate.mjs (not byte-identical to it).
fn memory_text(i: usize) -> (String, String) {
    let mut rng = Rng(0x5eed + i as u64 * 7919);
    let kind = MemoryType::ALL[i % 4].as_str();
    let topic = rng.word();
    let file = format!("{kind}_{i:05}_{topic}.md");
    let mut description = format!(
        "{}{topic} {}",
        if i % 5 == 0 { "Rule: " } else { "" },
        rng.words(30)
    );
    description.truncate(105);
    let description = if i % 5 == 0 {
        format!("\"{description}\"")
    } else {
        description
    };
    let body: String = (0..12).map(|_| format!("{}.\n\n", rng.words(25))).collect();
    let text = format!(
        "---\nname: {topic} {} {i}\ndescription: {description}\ntype: {kind}\n---\n\n{body}",
        rng.words(2)
    );
    (file, text)
}

fn headers(count: usize) -> Vec<MemoryHeader> {
    (0..count)
        .map(|i| {
            let (filename, text) = memory_text(i);
            let head: String = text.split('\n').take(30).collect::<Vec<_>>().join("\n");
            let parsed = parse_frontmatter(&head);
            MemoryHeader {
                file_path: format!("/m/{filename}"),
                filename,
                mtime_ms: 1.7e12 - i as f64 * 60_000.0,
                description: parsed.header.description,
                memory_type: parsed.header.memory_type,
                name: parsed.header.name,
                body_head: parsed.body,
            }
        })
        .collect()
}

const QUERIES: &[&str] = &[
    "how do we deploy the docker worker",
    "redis cache token",
    "why did the migration test fail",
    "user oauth session",
    "lint yaml schema",
    // A long mid-task request, typos (each unknown word is corrected against the vocabulary),
    // and a pasted trace full of identifiers.
    "ok so before we ship this I need you to look at why the release pipeline keeps failing on \
     the wasm build step and then update the frontend config so the session token is refreshed",
    "dokcer netwrok configuraton for the reddis sever",
    "Error: ECONNREFUSED 127.0.0.1:6379\n    at RedisClient.connect (src/cache/redisClient.ts:42:11)\n    \
     at Worker.run (src/queue/worker.ts:88:5)",
];

fn per_call_ms(total: std::time::Duration, calls: usize) -> f64 {
    total.as_secs_f64() * 1000.0 / calls as f64
}

#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn ranker_over_10000_memories() {
    let headers = headers(10_000);
    for q in QUERIES {
        rank_memories(q, &headers, 5); // warm-up
    }
    let t = Instant::now();
    let mut hits = 0;
    for q in QUERIES.iter().take(2) {
        hits += rank_memories(q, &headers, 5).len();
    }
    let build_and_rank = per_call_ms(t.elapsed(), 2);
    let t = Instant::now();
    let index = RankerIndex::build(&headers);
    let build = per_call_ms(t.elapsed(), 1);
    let rounds = 10;
    let mut per_query = Vec::new();
    for q in QUERIES {
        let t = Instant::now();
        for _ in 0..rounds {
            hits += index.rank(q, 5).len();
        }
        per_query.push(per_call_ms(t.elapsed(), rounds));
    }
    let t = Instant::now();
    for _ in 0..rounds {
        for q in QUERIES {
            hits += index.explain(q, 5).len();
        }
    }
    let explain = per_call_ms(t.elapsed(), rounds * QUERIES.len());
    let t = Instant::now();
    for q in QUERIES {
        std::hint::black_box(index.prefilter(q, 200));
    }
    let prefilter = per_call_ms(t.elapsed(), QUERIES.len());
    let worst = per_query.iter().copied().fold(0.0, f64::max);
    println!(
        "ranker over 10000: build {build:.1} ms; rank on the built index {} ms/query (worst \
         {worst:.3}; target ≤ 10 ms); explain {explain:.3} ms/query; prefilter(200) \
         {prefilter:.3} ms/query; build + rank at once {build_and_rank:.1} ms/query; {hits} hits",
        per_query
            .iter()
            .map(|ms| format!("{ms:.3}"))
            .collect::<Vec<_>>()
            .join(" / ")
    );
    assert!(hits > 0, "the queries must match something");
}

#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn ranker_incremental_updates_10000() {
    let headers = headers(10_000);
    let t = Instant::now();
    let mut index = RankerIndex::new(RankerParams::default());
    for h in &headers {
        index.upsert(h.into());
    }
    let one_by_one = per_call_ms(t.elapsed(), 1);
    let t = Instant::now();
    let fresh = RankerIndex::build(&headers);
    let batch = per_call_ms(t.elapsed(), 1);
    // Replace 200 memories with new text, then remove and re-add 200 others.
    let changed: Vec<(String, String)> = (0..200)
        .map(|i| {
            (
                headers[i * 37].filename.clone(),
                format!("{} rewritten", headers[i * 41].body_head),
            )
        })
        .collect();
    let t = Instant::now();
    for (filename, body) in &changed {
        index.upsert(RankerDoc {
            filename,
            body,
            name: "rewritten",
            description: "a rewritten memory",
            mtime_ms: 1.8e12,
        });
    }
    let upsert = per_call_ms(t.elapsed(), changed.len()) * 1000.0;
    let t = Instant::now();
    for h in headers.iter().skip(5000).take(200) {
        assert!(index.remove(&h.filename));
    }
    let remove = per_call_ms(t.elapsed(), 200) * 1000.0;
    for h in headers.iter().skip(5000).take(200) {
        index.upsert(h.into());
    }
    let hits: usize = QUERIES
        .iter()
        .map(|q| index.rank(q, 5).len() + fresh.rank(q, 5).len())
        .sum();
    println!(
        "ranker index of 10000: build {batch:.1} ms in one go, {one_by_one:.1} ms by upsert; \
         replace one memory {upsert:.1} µs, remove one {remove:.1} µs; {hits} hits"
    );
    assert_eq!(index.len(), 10_000);
}

#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn parse_frontmatter_10000_native() {
    let texts: Vec<String> = (0..10_000).map(|i| memory_text(i).1).collect();
    let mut named = 0;
    for round in 0..3 {
        let t = Instant::now();
        for text in &texts {
            named += usize::from(parse_frontmatter(text).header.name.is_some());
        }
        let plain = per_call_ms(t.elapsed(), texts.len()) * 1000.0;
        let t = Instant::now();
        for text in texts.iter().step_by(5) {
            named += usize::from(parse_frontmatter(text).header.name.is_some());
        }
        let quoted = per_call_ms(t.elapsed(), texts.len() / 5) * 1000.0;
        println!("parse_frontmatter native, round {round}: {plain:.2} µs/file (all), {quoted:.2} µs/file (the 20 % with a quoted description)");
    }
    assert_eq!(named, 3 * (10_000 + 2_000));
}

#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn truncate_one_mib_native() {
    let mut index = String::new();
    let mut i = 0;
    while index.len() < 1 << 20 {
        let (file, _) = memory_text(i % 10_000);
        index.push_str(&format!(
            "- [Title {i}]({file}) — {}\n",
            Rng(i as u64).words(8)
        ));
        i += 1;
    }
    let options = TruncateOptions::default();
    let t = Instant::now();
    let mut kept = 0;
    for _ in 0..20 {
        kept += truncate_entrypoint(&index, &options).content.len();
    }
    println!(
        "truncate_entrypoint native, 1 MiB: {:.3} ms/call",
        per_call_ms(t.elapsed(), 20)
    );
    assert!(kept > 0);
}

/// The whole-directory recall index (issue #13 item 2) over 10,000 files in a `MemFs`: the
/// first query (lists, stats and reads every head, tokenises it), a warm query with the MemFs's
/// change notifications (no stat), a warm query without (a stat pass), and a scan for scale.
/// Native: the difference from the Node rows of benches/run.mjs is the wasm boundary and I/O.
#[test]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
fn recall_index_over_10000_files() {
    use memdir::future::block_on;
    use memdir::recall::FindOptions;
    use memdir::{MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry};

    let fs = MemFs::new();
    for i in 0..10_000 {
        let (file, text) = memory_text(i);
        fs.insert_file(&format!("/m/{file}"), text);
    }
    let config = || MemdirConfig::new("/m/");
    let clock = || TestClock::instant(1.7e12);
    let rounds = 5;
    let t = Instant::now();
    for _ in 0..rounds {
        let m = Memdir::new(&fs, clock(), None::<NoLlm>, NoTelemetry, config());
        block_on(m.find_relevant(QUERIES[0], FindOptions::default())).unwrap();
    }
    let first = per_call_ms(t.elapsed(), rounds);
    let watched = Memdir::new(&fs, clock(), None::<NoLlm>, NoTelemetry, config());
    let polled = Memdir::new(Tap::new(&fs), clock(), None::<NoLlm>, NoTelemetry, config());
    block_on(watched.find_relevant(QUERIES[0], FindOptions::default())).unwrap();
    block_on(polled.find_relevant(QUERIES[0], FindOptions::default())).unwrap();
    let time = |m: &dyn Fn(&str)| {
        let t = Instant::now();
        for q in QUERIES {
            m(q);
        }
        per_call_ms(t.elapsed(), QUERIES.len())
    };
    let warm = time(&|q| {
        block_on(watched.find_relevant(q, FindOptions::default())).unwrap();
    });
    let stat_pass = time(&|q| {
        block_on(polled.find_relevant(q, FindOptions::default())).unwrap();
    });
    let scan = time(&|_| {
        block_on(polled.scan()).unwrap();
    });
    // The same I/O as the first query, nothing else: list, stat each file, read its 16 KB head
    // (the scan reads the heads of only the newest 200).
    let floor = time(&|_| {
        use memdir::FileSystem;
        let read = block_on(async {
            let mut bytes = 0;
            for entry in fs.read_dir("/m/").await.unwrap() {
                let path = format!("/m/{}", entry.name);
                if fs.stat(&path).await.unwrap().mtime_ms > 0.0 {
                    bytes += fs.read_head(&path, 16 * 1024).await.unwrap().len();
                }
            }
            bytes
        });
        assert!(read > 0);
    });
    println!(
        "recall index native, 10000 files: first query {first:.1} ms, warm with watch {warm:.2} ms, \
         warm with a stat pass {stat_pass:.1} ms, scan {scan:.1} ms (first query {:.1}× it), \
         same-I/O floor (list + stat + 16 KB head of each) {floor:.1} ms (first query {:.1}× it)",
        first / scan,
        first / floor
    );
}
