//! Native replay of the fuzz targets' invariant checks (`tests/fuzz/src/checks.rs`), so they run
//! on stable in every `cargo test`:
//!
//! - every file under `tests/fuzz/regressions/<target>/` (inputs that once failed) and
//!   `tests/fuzz/corpus/<target>/` (seeds) is replayed through its target's check;
//! - a short deterministic random sweep (hand-rolled PRNG, biased towards each parser's syntax)
//!   exercises every check, a stand-in for fuzzing where cargo-fuzz cannot run.
//!
//! Fuzz for real with `scripts/fuzz.sh` (see its header).

mod common;

use common::Rng;
#[path = "fuzz/src/checks.rs"]
mod checks;

/// The clock of the checks' timing: natively the wall clock (the fuzz harness uses the thread's
/// CPU time); the best of three measurements absorbs most noise.
mod cpu_time {
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    pub fn now() -> Duration {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed()
    }
}

use std::path::Path;

/// Wall-time measurements of each size a linearity check may take here (the fuzzer's three
/// count thread CPU time; this replay shares a loaded machine with the other tests).
const NATIVE_TIMING_ROUNDS: u32 = 12;

fn replay_dir(target: &str, check: checks::Check, folder: &str) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(folder)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut count = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_file() {
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{target}: {} fails", path.display());
            count += 1;
        }
    }
    count
}

#[test]
fn corpus_seeds_pass_every_check() {
    checks::set_timing_rounds(NATIVE_TIMING_ROUNDS);
    let mut total = 0;
    for (target, check) in checks::TARGETS {
        total += replay_dir(target, check, "corpus");
    }
    assert!(total >= 20, "expected the seed corpus, found {total} files");
}

#[test]
fn regression_inputs_pass_every_check() {
    checks::set_timing_rounds(NATIVE_TIMING_ROUNDS);
    for (target, check) in checks::TARGETS {
        replay_dir(target, check, "regressions");
    }
}

/// Fragments each parser cares about; inputs are random concatenations of them and random bytes.
const PIECES: &[&str] = &[
    "---",
    "---\n",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    ":",
    ": ",
    "\"",
    "'",
    "#",
    "-",
    "- ",
    "*",
    "+",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "](",
    ">)",
    "\\",
    "\\]",
    "/",
    "..",
    "%",
    "%2e",
    "%2F",
    "%C3%A9",
    "%FF",
    "\0",
    "\u{FEFF}",
    "\u{2028}",
    "\u{3000}",
    "．",
    "／",
    "＼",
    "é",
    "😀",
    "—",
    "–",
    "--",
    "name",
    "description",
    "type",
    "user",
    "feedback",
    "project",
    "reference",
    "name: ",
    "description: ",
    "type: user",
    "|",
    ">",
    "{",
    "}",
    "[]",
    "{}",
    ",",
    "null",
    "true",
    "yes",
    "1e3",
    "0x1F",
    "~",
    "!!str ",
    "&a ",
    "*a",
    "? ",
    "```",
    "```json\n",
    "selected_memories",
    "{\"selected_memories\":[",
    "\"a.md\"",
    "\"b.md\"",
    "\\u0061",
    "a.md",
    "b.md",
    "AKIA",
    "QQQQQQQQQQQQQQQQ",
    "ghp_",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "sk-ant-api03-",
    "xoxb-",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "password = ",
    "=",
];

fn random_input(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let parts = rng.below(40);
    for _ in 0..parts {
        if rng.below(6) == 0 {
            out.push(rng.next() as u8);
        } else {
            out.extend_from_slice(PIECES[rng.below(PIECES.len())].as_bytes());
        }
    }
    out
}

#[test]
fn random_sweep_passes_every_check() {
    // Behaviour only: thousands of timed runs through unoptimised code would take minutes (the
    // corpus and regression replays above check timing).
    checks::set_timing(false);
    for (n, (target, check)) in checks::TARGETS.iter().enumerate() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (n as u64 + 1));
        for round in 0..3000 {
            let mut data = random_input(&mut rng);
            if matches!(
                *target,
                "truncate_entrypoint" | "parse_selector_reply" | "sync_response"
            ) {
                data.insert(0, rng.next() as u8);
            }
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(
                outcome.is_ok(),
                "{target}: round {round} fails on {:?}",
                String::from_utf8_lossy(&data)
            );
        }
    }
}

/// Fuzz finding (parse_index_entry): a link target with surrounding whitespace, written
/// `<b.md >`, parsed to `b.md ` but `format_index_entry` trimmed it and wrote the bare `b.md`,
/// so the formatted entry pointed at another file. Fixed: the target keeps its spelling and is
/// bracketed when it has whitespace.
#[test]
fn index_target_whitespace_survives_a_round_trip() {
    let entry = memdir::parse_index_entry("- [a](<b.md >)").unwrap();
    assert_eq!(entry.file, "b.md ");
    let formatted = memdir::format_index_entry(&entry);
    assert_eq!(
        memdir::parse_index_entry(&formatted),
        Some(entry),
        "{formatted:?}"
    );
    let data =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "tests/fuzz/regressions/parse_index_entry/parse_index_entry-target-trailing-space",
        ))
        .unwrap();
    let entry = memdir::parse_index_entry(&String::from_utf8_lossy(&data)).unwrap();
    let formatted = memdir::format_index_entry(&entry);
    assert_eq!(
        memdir::parse_index_entry(&formatted),
        Some(entry),
        "{formatted:?}"
    );
}
