//! The persisted recall index (`.memdir-index`): a new instance over a directory some instance
//! indexed before reads only the memories that changed, and recalls exactly what a fresh build
//! recalls — on the recall-evaluation fixture, after edits, deletes and adds, and whatever the
//! cache file holds (another directory's, garbage, truncated). Read-only instances never write
//! it. Host calls are counted.

// Test helpers: a failed unwrap is a failed test; std's sort is fine outside the library.
#![allow(clippy::unwrap_used, clippy::disallowed_methods)]

mod common;

use common::{block_on, Op, Tap, TestClock, Watch};
use memdir::host::FileSystem;
use memdir::lint::LintOptions;
use memdir::recall::index_cache::INDEX_CACHE_NAME;
use memdir::recall::FindOptions;
use memdir::{MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry, WriteMode};
use std::path::Path;
use std::rc::Rc;

const NOW: f64 = 1_800_000_000_000.0;
const CACHE: &str = "/mem/.memdir-index";

type CountingFs = Tap<Rc<MemFs>>;
type Instance = Memdir<CountingFs, TestClock, NoLlm, NoTelemetry>;

fn instance(fs: &Rc<MemFs>, dir: &str, mode: WriteMode) -> (Instance, CountingFs) {
    let mut tap = Tap::new(Rc::clone(fs));
    tap.watch = Watch::None;
    let mut config = MemdirConfig::new(dir);
    config.write_mode = mode;
    let m = Memdir::new(tap.clone(), TestClock::new(NOW), None, NoTelemetry, config);
    (m, tap)
}

/// Reads of memory files (not of the cache).
fn memory_reads(tap: &CountingFs) -> usize {
    tap.paths_of(&[Op::ReadFile, Op::ReadHead])
        .iter()
        .filter(|p| p.ends_with(".md"))
        .count()
}

fn recall_all(m: &Instance, queries: &[String]) -> Vec<Vec<String>> {
    queries
        .iter()
        .map(|q| {
            let options = FindOptions {
                limit: 20,
                ..FindOptions::default()
            };
            block_on(m.find_relevant(q, options))
                .unwrap()
                .memories
                .into_iter()
                .map(|r| r.path)
                .collect()
        })
        .collect()
}

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall_eval")
}

/// Every project of the fixture with its queries (of every split).
fn projects() -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(fixture())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for file in files {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_yaml::Value = serde_yaml::from_str(line).unwrap();
            let project = v["project"].as_str().unwrap().to_owned();
            let query = v["query"].as_str().unwrap().to_owned();
            match out.iter_mut().find(|(p, _)| *p == project) {
                Some((_, qs)) => qs.push(query),
                None => out.push((project, vec![query])),
            }
        }
    }
    out
}

/// A project's memories under `dir`, with distinct mtimes.
fn load(fs: &MemFs, project: &str, dir: &str) -> usize {
    let mut names: Vec<_> = std::fs::read_dir(fixture().join(project))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for (i, p) in names.iter().enumerate() {
        let path = format!("{dir}{}", p.file_name().unwrap().to_str().unwrap());
        fs.insert_file(&path, std::fs::read(p).unwrap());
        fs.set_mtime(&path, NOW - 1e6 + i as f64 * 1000.0);
    }
    names.len()
}

fn read(fs: &MemFs, path: &str) -> Option<String> {
    block_on(fs.read_file(path)).ok()
}

/// What a fresh build recalls now: no cache, and a read-only instance writes none.
fn fresh_answers(fs: &Rc<MemFs>, queries: &[String]) -> Vec<Vec<String>> {
    let saved = read(fs, CACHE);
    let _ = block_on(fs.remove(CACHE));
    let (m, tap) = instance(fs, "/mem/", WriteMode::ReadOnly);
    let answers = recall_all(&m, queries);
    assert!(memory_reads(&tap) > 0);
    assert_eq!(read(fs, CACHE), None, "read-only never writes the cache");
    if let Some(text) = saved {
        fs.insert_file(CACHE, text);
    }
    answers
}

#[test]
fn a_new_instance_recalls_the_same_from_the_cache_without_reading_memories() {
    let mut checked = 0;
    for (project, queries) in projects() {
        let fs = Rc::new(MemFs::new());
        let n = load(&fs, &project, "/mem/");
        let expected = fresh_answers(&fs, &queries);
        assert!(expected.iter().any(|a| !a.is_empty()), "{project}");

        // The first instance ever reads everything and leaves the cache.
        let (first, tap) = instance(&fs, "/mem/", WriteMode::Auto);
        assert_eq!(recall_all(&first, &queries), expected, "{project}");
        assert_eq!(
            memory_reads(&tap),
            n - 1,
            "{project}: every memory but MEMORY.md"
        );
        assert!(read(&fs, CACHE).is_some(), "{project}: cache written");
        // The scan and lint never see it.
        assert_eq!(block_on(first.scan()).unwrap().len(), n - 1, "{project}");
        let report = block_on(first.lint(&LintOptions::default())).unwrap();
        assert!(
            report
                .findings
                .iter()
                .all(|f| !format!("{f:?}").contains(INDEX_CACHE_NAME)),
            "{project}"
        );

        // A new instance reads no memory, only the cache, and answers the same.
        let (second, tap) = instance(&fs, "/mem/", WriteMode::Auto);
        assert_eq!(recall_all(&second, &queries), expected, "{project}");
        assert_eq!(memory_reads(&tap), 0, "{project}");
        assert_eq!(
            tap.paths_of(&[Op::ReadFile, Op::ReadHead]),
            [CACHE],
            "{project}: one read of the cache"
        );
        assert!(
            tap.paths_of(&[Op::WriteFile, Op::Rename]).is_empty(),
            "{project}: an unchanged cache is not rewritten"
        );
        checked += queries.len();
    }
    assert!(checked >= 100, "{checked} queries");
}

#[test]
fn edits_deletes_and_adds_are_read_and_the_rest_comes_from_the_cache() {
    let (project, queries) = projects().into_iter().next().unwrap();
    let fs = Rc::new(MemFs::new());
    load(&fs, &project, "/mem/");
    let (first, _) = instance(&fs, "/mem/", WriteMode::Auto);
    recall_all(&first, &queries);
    let before = read(&fs, CACHE).unwrap();

    // Behind every instance's back: one memory rewritten, one deleted, one added.
    let mut mds: Vec<String> = block_on(fs.read_dir("/mem/"))
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .filter(|n| n.ends_with(".md") && n != "MEMORY.md")
        .collect();
    mds.sort();
    let edited = format!("/mem/{}", mds[0]);
    let text = read(&fs, &edited).unwrap();
    fs.insert_file(
        &edited,
        text.replace("description:", "description: zebra crossings and"),
    );
    block_on(fs.remove(&format!("/mem/{}", mds[1]))).unwrap();
    fs.insert_file(
        "/mem/feedback_zebra.md",
        "---\nname: zebra\ndescription: Zebra printers need the ZPL driver\ntype: feedback\n---\nUse ZPL.\n",
    );
    let mut queries = queries;
    queries.push("zebra printer driver".into());
    let expected = fresh_answers(&fs, &queries);
    assert!(expected
        .last()
        .unwrap()
        .contains(&"/mem/feedback_zebra.md".to_owned()));

    let (second, tap) = instance(&fs, "/mem/", WriteMode::Auto);
    assert_eq!(recall_all(&second, &queries), expected);
    assert_eq!(memory_reads(&tap), 2, "the edited and the added memory");
    let after = read(&fs, CACHE).unwrap();
    assert_ne!(after, before, "the changed index is written back");

    // And that rewritten cache serves the next instance alone.
    let (third, tap) = instance(&fs, "/mem/", WriteMode::Auto);
    assert_eq!(recall_all(&third, &queries), expected);
    assert_eq!(memory_reads(&tap), 0);
}

#[test]
fn foreign_or_broken_caches_are_ignored_and_replaced() {
    let (project, queries) = projects().into_iter().next().unwrap();
    let fs = Rc::new(MemFs::new());
    let n = load(&fs, &project, "/mem/");
    load(&fs, &project, "/other/");
    let expected = fresh_answers(&fs, &queries);
    let (first, _) = instance(&fs, "/other/", WriteMode::Auto);
    recall_all(&first, &queries);
    let other = read(&fs, &format!("/other/{INDEX_CACHE_NAME}")).unwrap();
    let (a, _) = instance(&fs, "/mem/", WriteMode::Auto);
    recall_all(&a, &queries);
    let good = read(&fs, CACHE).unwrap();

    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut candidates = vec![
        other,
        String::new(),
        good[..good.len() / 2].to_owned(),
        good.replacen("memdir-index 3", "memdir-index 4", 1),
    ];
    for _ in 0..6 {
        let bytes: Vec<u8> = (0..next() % 2000).map(|_| next() as u8).collect();
        candidates.push(String::from_utf8_lossy(&bytes).into_owned());
        let mut altered = good.clone().into_bytes();
        let at = (next() as usize) % altered.len();
        altered[at] ^= 1 + (next() % 255) as u8;
        candidates.push(String::from_utf8_lossy(&altered).into_owned());
    }
    for (i, bad) in candidates.into_iter().enumerate() {
        fs.insert_file(CACHE, &bad);
        let (m, tap) = instance(&fs, "/mem/", WriteMode::Auto);
        assert_eq!(recall_all(&m, &queries), expected, "candidate {i}");
        assert_eq!(
            memory_reads(&tap),
            n - 1,
            "candidate {i}: rebuilt by reading"
        );
        assert_eq!(read(&fs, CACHE).unwrap(), good, "candidate {i}: replaced");
    }
}
