//! Native timings of the pure hot paths over 10,000 synthetic memories (issue #8): the lexical
//! ranker (design §7: under 10 ms a query), `parse_frontmatter` and entrypoint truncation. The
//! Node benchmark (benches/run.mjs) measures the same paths through the wasm boundary; the
//! difference between the two is the boundary's cost. Ignored by default; run in release:
//!
//! ```sh
//! cargo test --release --test bench_ranker -- --ignored --nocapture --test-threads=1
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use memdir::recall::{rank_memories, RankerIndex};
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
    for q in QUERIES {
        hits += rank_memories(q, &headers, 5).len();
    }
    let build_and_rank = per_call_ms(t.elapsed(), QUERIES.len());
    let t = Instant::now();
    let index = RankerIndex::build(&headers);
    let build = per_call_ms(t.elapsed(), 1);
    let t = Instant::now();
    for _ in 0..10 {
        for q in QUERIES {
            hits += index.rank(q, 5).len();
        }
    }
    let rank_only = per_call_ms(t.elapsed(), 10 * QUERIES.len());
    println!(
        "ranker over 10000: index build + rank {build_and_rank:.2} ms/query (build {build:.2} ms, \
         rank on a built index {rank_only:.3} ms/query); target ≤ 10 ms/query; {hits} hits"
    );
    assert!(hits > 0, "the queries must match something");
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
