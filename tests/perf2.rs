//! Equivalence checks for the fast paths of perf work: the word-at-a-time UTF-16 and newline
//! counting, and the truncation built on them, against plain per-character definitions.

mod common;

use common::XorShift;
use memdir::jsstr::{js_line_count, js_trim, utf16_len, utf16_to_byte_index};
use memdir::{truncate_entrypoint, TruncateOptions};

/// Strings mixing ASCII runs, newlines, whitespace and 2-, 3- and 4-byte characters.
fn random_text(rng: &mut XorShift, len: usize) -> String {
    const PIECES: &[&str] = &[
        "a",
        "bcdefghij",
        "\n",
        "\r\n",
        " ",
        "é",
        "—",
        "日本",
        "😀",
        "\u{FEFF}",
        "\u{A0}",
        "x\n\n",
        "- [T](t.md) — hook",
        "\u{10FFFF}",
        "\u{7F}",
        "\u{80}",
    ];
    let mut s = String::new();
    while s.len() < len {
        s.push_str(PIECES[rng.below(PIECES.len())]);
    }
    s
}

/// JS `s.length` and `s.split("\n").length` by definition.
fn naive_counts(s: &str) -> (usize, usize) {
    (s.encode_utf16().count(), s.split('\n').count())
}

/// The byte index of UTF-16 index `units`, floored to a char boundary, by definition.
fn naive_byte_index(s: &str, units: usize) -> usize {
    let mut seen = 0;
    for (i, c) in s.char_indices() {
        if seen + c.len_utf16() > units {
            return i;
        }
        seen += c.len_utf16();
    }
    s.len()
}

/// The reference algorithm (reference §3.1) over UTF-16 units, with our documented deviation
/// (a hard cut inside a surrogate pair backs off one unit): the kept text, before the warning.
fn naive_kept(raw: &str, max_lines: usize, max_units: usize) -> String {
    let trimmed = js_trim(raw);
    let lines: Vec<&str> = trimmed.split('\n').collect();
    let mut kept: String = lines[..lines.len().min(max_lines)].join("\n");
    let units: Vec<u16> = kept.encode_utf16().collect();
    if units.len() > max_units {
        let search = &units[..units.len().min(max_units + 1)];
        let cut = match search.iter().rposition(|&u| u == u16::from(b'\n')) {
            Some(at) if at > 0 => at,
            _ => {
                let mut at = max_units;
                if (0xDC00..0xE000).contains(&units[at]) {
                    at -= 1;
                }
                at
            }
        };
        kept = String::from_utf16(&units[..cut]).unwrap();
    }
    kept
}

#[test]
fn word_at_a_time_counts_match_the_definitions() {
    let mut rng = XorShift(0x5EED_1234_ABCD_0001);
    for round in 0..3000 {
        let s = random_text(&mut rng, round % 97);
        let (units, lines) = naive_counts(&s);
        assert_eq!(utf16_len(&s), units, "{s:?}");
        assert_eq!(js_line_count(&s), lines, "{s:?}");
        for target in [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, units / 2, units, units + 1] {
            assert_eq!(
                utf16_to_byte_index(&s, target),
                naive_byte_index(&s, target),
                "{s:?} at {target}"
            );
        }
    }
    assert_eq!(utf16_len("aaaaaaa😀bbbbbbbé"), 17);
    assert_eq!(utf16_to_byte_index("aaaaaaa😀bbbbbbbé", 8), 7);
    assert_eq!(utf16_to_byte_index("aaaaaaa😀bbbbbbbé", 9), 11);
}

#[test]
fn truncation_matches_the_reference_algorithm() {
    let mut rng = XorShift(0xC0FF_EE00_1234_5678);
    for round in 0..3000 {
        let raw = random_text(&mut rng, round % 300);
        let max_lines = rng.below(12);
        let max_units = rng.below(120);
        let options = TruncateOptions {
            max_lines,
            max_units,
        };
        let got = truncate_entrypoint(&raw, &options);
        let trimmed = js_trim(&raw);
        let (units, lines) = naive_counts(trimmed);
        assert_eq!((got.byte_count, got.line_count), (units, lines), "{raw:?}");
        assert_eq!(got.was_line_truncated, lines > max_lines);
        assert_eq!(got.was_byte_truncated, units > max_units);
        if got.was_line_truncated || got.was_byte_truncated {
            let kept = naive_kept(&raw, max_lines, max_units);
            assert!(
                got.content
                    .starts_with(&format!("{kept}\n\n> WARNING: MEMORY.md is ")),
                "{raw:?} ({max_lines}, {max_units}): {:?} vs {kept:?}",
                got.content
            );
        } else {
            assert_eq!(got.content, trimmed);
        }
    }
}

/// Memory headers with words drawn from a vocabulary of inflections, stop words, identifiers
/// and non-ASCII words, deterministic.
fn random_headers(rng: &mut XorShift, count: usize) -> Vec<memdir::MemoryHeader> {
    const VOCAB: &[&str] = &[
        "deploy",
        "deploys",
        "deploying",
        "deployed",
        "docker",
        "worker",
        "redis",
        "cache",
        "caches",
        "token",
        "tokens",
        "migration",
        "migrate",
        "migrations",
        "test",
        "tests",
        "testing",
        "flaky",
        "oauth",
        "session",
        "sessions",
        "user",
        "users",
        "lint",
        "yaml",
        "schema",
        "queries",
        "query",
        "running",
        "ran",
        "the",
        "a",
        "of",
        "to",
        "and",
        "with",
        "Été",
        "ÜNÏCODE",
        "日本語",
        "naïve",
        "k8s",
        "v2",
        "API",
        "api_key",
        "pass",
        "passes",
        "status",
        "class",
        "branches",
        "fixes",
        "noted",
        "release",
        "released",
        "releasing",
        "x",
        "CI",
        "ci-pipeline",
        "db.md",
        "2026",
        "über",
        "staging",
        "production",
        "why",
    ];
    const TYPES: [memdir::MemoryType; 4] = [
        memdir::MemoryType::User,
        memdir::MemoryType::Feedback,
        memdir::MemoryType::Project,
        memdir::MemoryType::Reference,
    ];
    let words = |rng: &mut XorShift, at_least: usize, more: usize, sep: &str| -> String {
        let n = at_least + rng.below(more);
        (0..n)
            .map(|_| VOCAB[rng.below(VOCAB.len())])
            .collect::<Vec<_>>()
            .join(sep)
    };
    (0..count)
        .map(|i| {
            let filename = format!("{}_{i}.md", words(rng, 2, 1, "_"));
            memdir::MemoryHeader {
                file_path: format!("/m/{filename}"),
                filename,
                mtime_ms: 1.7e12 - i as f64,
                description: (rng.below(8) > 0).then(|| words(rng, 3, 12, " ")),
                memory_type: (rng.below(5) > 0).then(|| TYPES[rng.below(4)]),
                name: (rng.below(6) > 0).then(|| words(rng, 1, 4, " ")),
                body_head: words(rng, 0, 120, if i % 3 == 0 { ". " } else { " " }),
            }
        })
        .collect()
}

/// FNV-1a over everything the ranker answers for a set of queries: filenames, exact score bits
/// and pre-filter orders.
fn ranking_digest(headers: &[memdir::MemoryHeader]) -> u64 {
    let index = memdir::recall::RankerIndex::build(headers);
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut hits = 0;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    for query in [
        "how do we deploy the docker worker",
        "redis cache token",
        "why did the migration test fail",
        "user oauth session",
        "lint yaml schema",
        "Été über naïve 日本語",
        "running queries on staging with the API key",
        "ci pipeline flaky tests",
        "",
    ] {
        for hit in index.rank(query, 10) {
            hits += 1;
            eat(hit.filename.as_bytes());
            eat(&hit.score.to_bits().to_le_bytes());
        }
        for position in index.prefilter(query, 50) {
            eat(&position.to_le_bytes());
        }
    }
    assert!(hits > 20, "the queries must match: {hits} hits");
    hash
}

#[test]
fn ranking_is_unchanged_by_the_fast_index() {
    // The digest of the BM25F ranker of issue #13 with its default parameters (same scores, bit
    // for bit): a change to tokenising, scoring or the cut-off shows up here. Re-pinned in
    // session 5 for the cut-off's stop-word weight (`RankerParams::stop_word_weight`), the one
    // intended scoring change of that session.
    let mut rng = XorShift(0xABCD_EF01_2345_6789);
    let headers = random_headers(&mut rng, 400);
    let digest = ranking_digest(&headers);
    println!("ranking digest {digest:#x}");
    assert_eq!(digest, EXPECTED_RANKING_DIGEST);
}

const EXPECTED_RANKING_DIGEST: u64 = 0x1f88_63a4_b2e3_3053;
