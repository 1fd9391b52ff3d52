//! `lint()` over fixture directories: every planted problem found, nothing in a clean one.

mod common;

use common::std_fs::StdFs;
use common::{block_on, TestClock};
use memdir::lint::{lint_memory, LintFile, LintOptions, LintReport, Severity};
use memdir::{MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry, TruncateOptions, WriteMode};
use std::path::Path;

const NOW: f64 = 1_750_000_000_000.0;
const DAY: f64 = 86_400_000.0;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lint")
        .join(name)
}

/// The fixture in a MemFs under /m/, files a day old, `stale.md` 200 days old, the secret
/// placeholder filled in (no token is committed to the repository).
fn load(name: &str) -> MemFs {
    let fs = MemFs::new();
    let root = fixture(name);
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap().display().to_string();
            let secret = format!("ghp_{}", "Zq9x".repeat(9));
            let text = std::fs::read_to_string(&path)
                .unwrap()
                .replace("{{SECRET}}", &secret);
            let abs = format!("/m/{rel}");
            fs.insert_file(&abs, text);
            let age = if rel == "stale.md" { 200.0 } else { 1.0 };
            fs.set_mtime(&abs, NOW - age * DAY);
        }
    }
    fs
}

fn lint(fs: MemFs, options: &LintOptions) -> LintReport {
    let mut c = MemdirConfig::new("/m/");
    c.write_mode = WriteMode::ReadOnly;
    let m: Memdir<MemFs, TestClock, NoLlm> =
        Memdir::new(fs, TestClock::new(NOW), None, NoTelemetry, c);
    block_on(m.lint(options)).unwrap()
}

type Key = (&'static str, Option<String>, Option<usize>, Vec<String>);

fn keys(report: &LintReport) -> Vec<Key> {
    let mut keys: Vec<Key> = report
        .findings
        .iter()
        .map(|f| (f.code, f.file.clone(), f.line, f.related.clone()))
        .collect();
    keys.sort();
    keys
}

fn key(code: &'static str, file: &str, line: Option<usize>, related: &[&str]) -> Key {
    (
        code,
        Some(file.to_owned()),
        line,
        related.iter().map(|s| (*s).to_owned()).collect(),
    )
}

#[test]
fn finds_every_planted_problem_and_nothing_else() {
    let report = lint(load("planted"), &LintOptions::default());
    let mut expected = vec![
        key("INVALID_FRONTMATTER", "no_frontmatter.md", None, &[]),
        key("UNKNOWN_TYPE", "bad_type.md", None, &[]),
        key("MISSING_DESCRIPTION", "no_description.md", None, &[]),
        key("SECRET", "secret.md", None, &[]),
        key("STALE_MEMORY", "stale.md", None, &[]),
        key("OVERSIZED_MEMORY", "big.md", None, &[]),
        key("INDEX_LINE_TOO_LONG", "MEMORY.md", Some(12), &[]),
        key("DANGLING_INDEX_ENTRY", "MEMORY.md", Some(13), &[]),
        key("UNINDEXED_FILE", "unindexed.md", None, &[]),
        key("INDEX_OVER_CAP", "MEMORY.md", None, &["late.md"]),
        key("DUPLICATE_MEMORY", "dup_a.md", None, &["dup_b.md"]),
        key("NEAR_DUPLICATE_MEMORY", "near_a.md", None, &["near_b.md"]),
    ];
    expected.sort();
    assert_eq!(keys(&report), expected);
    assert_eq!(report.files_checked, 12);
    assert!(report.has_errors());
    // Messages name rules, never the secret.
    let secret = report.findings.iter().find(|f| f.code == "SECRET").unwrap();
    assert_eq!(secret.message, "contains potential secrets (GitHub PAT)");
    assert_eq!(secret.severity, Severity::Error);
    let unknown = report
        .findings
        .iter()
        .find(|f| f.code == "UNKNOWN_TYPE")
        .unwrap();
    assert!(
        unknown
            .message
            .starts_with("type \"User\" is not one of user"),
        "{}",
        unknown.message
    );
    let over = report
        .findings
        .iter()
        .find(|f| f.code == "INDEX_OVER_CAP")
        .unwrap();
    assert!(
        over.message.contains("213 lines") && over.message.contains("from line 201"),
        "{}",
        over.message
    );
}

#[test]
fn a_clean_directory_has_no_findings() {
    let report = lint(load("clean"), &LintOptions::default());
    assert_eq!(report.findings, []);
    assert_eq!(report.files_checked, 4);
    // The same directory on disk, through the real filesystem.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as f64;
    let dir = format!("{}/", fixture("clean").display());
    let m: Memdir<StdFs, TestClock, NoLlm> = Memdir::new(
        StdFs::new(),
        TestClock::new(now),
        None,
        NoTelemetry,
        MemdirConfig::new(dir),
    );
    let options = LintOptions {
        stale_days: 100_000,
        ..LintOptions::default()
    };
    let report = block_on(m.lint(&options)).unwrap();
    assert_eq!(report.findings, []);
    assert_eq!(report.files_checked, 4);
}

#[test]
fn thresholds_and_team_index() {
    let file = |name: &str, text: &str| LintFile {
        file: name.into(),
        text: text.into(),
        mtime_ms: NOW,
    };
    let good = "---\nname: A\ndescription: alpha beta\ntype: user\n---\n\nx\n";
    let team_text = good.replace("alpha", "gamma").replace("x\n", "y\n");
    let files = [file("a.md", good), file("team/t.md", &team_text)];
    let index = "- [A](a.md) — alpha beta\n- [A](./a.md) — again\n";
    let team_index = "- [T](t.md) — t\n- [U](u.md) — gone\n";
    let options = LintOptions {
        index_caps: TruncateOptions {
            max_lines: 1,
            max_units: 1000,
        },
        ..LintOptions::default()
    };
    let report = lint_memory(&files, Some(index), Some(team_index), &options, NOW);
    let got: Vec<(&str, Option<&str>)> = report
        .findings
        .iter()
        .map(|f| (f.code, f.file.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("DUPLICATE_INDEX_ENTRY", Some("MEMORY.md")),
            ("INDEX_OVER_CAP", Some("MEMORY.md")),
            ("DANGLING_INDEX_ENTRY", Some("team/MEMORY.md")),
            ("INDEX_OVER_CAP", Some("team/MEMORY.md")),
        ]
    );
    assert_eq!(report.findings[3].related, ["u.md"]);
    // Without index checks only the file checks remain; a lower threshold finds the pair.
    let options = LintOptions {
        check_index: false,
        near_duplicate_threshold: 0.3,
        ..LintOptions::default()
    };
    let report = lint_memory(&files, None, None, &options, NOW);
    assert_eq!(report.codes(), ["NEAR_DUPLICATE_MEMORY"]);
    // Staleness is strictly over the threshold.
    let options = LintOptions {
        stale_days: 1,
        ..LintOptions::default()
    };
    let old = LintFile {
        mtime_ms: NOW - 2.0 * DAY,
        ..file("a.md", good)
    };
    let edge = LintFile {
        mtime_ms: NOW - DAY,
        ..file(
            "b.md",
            &good.replace("alpha beta", "delta").replace("x\n", "z\n"),
        )
    };
    let report = lint_memory(
        &[old, edge],
        None,
        None,
        &LintOptions {
            check_index: false,
            ..options
        },
        NOW,
    );
    assert_eq!(report.codes(), ["STALE_MEMORY"]);
}

// ------------------------------------------------------------------ duplicates (issue #18)

fn memory_file(file: &str, name: &str, description: &str, body: &str) -> LintFile {
    LintFile {
        file: file.into(),
        text: format!(
            "---\nname: {name}\ndescription: {description}\ntype: project\n---\n\n{body}\n"
        ),
        mtime_ms: NOW,
    }
}

fn duplicate_findings(report: &LintReport) -> Vec<&memdir::lint::LintFinding> {
    report
        .findings
        .iter()
        .filter(|f| f.code.ends_with("DUPLICATE_MEMORY"))
        .collect()
}

#[test]
fn two_distinct_short_memories_with_the_same_short_body_are_not_duplicates() {
    let options = LintOptions {
        check_index: false,
        ..LintOptions::default()
    };
    let files = [
        memory_file(
            "a.md",
            "Package manager",
            "Uses pnpm in the web repo",
            "Use pnpm.",
        ),
        memory_file(
            "b.md",
            "CI runner",
            "Uses pnpm on the CI runners",
            "Use pnpm.",
        ),
    ];
    let report = lint_memory(&files, None, None, &options, NOW);
    assert!(
        duplicate_findings(&report).is_empty(),
        "{:?}",
        report.findings
    );
    // The same long body is a copy, whatever the headers say.
    let long = "Run the integration tests against the staging database before every release; \
                never against production, and never with mocks in place of the database.";
    let files = [
        memory_file("a.md", "Package manager", "Uses pnpm in the web repo", long),
        memory_file("b.md", "CI runner", "Uses pnpm on the CI runners", long),
    ];
    let report = lint_memory(&files, None, None, &options, NOW);
    let found = duplicate_findings(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].code, found[0].file.as_deref()),
        ("DUPLICATE_MEMORY", Some("a.md"))
    );
    assert_eq!(found[0].related, ["b.md"]);
}

#[test]
fn ten_thousand_near_identical_memories_give_one_cluster_with_bounded_work() {
    use memdir::lint::{near_duplicate_clusters, tokens, MAX_POSTINGS_PER_SET, MAX_RELATED_FILES};
    const N: usize = 10_000;
    let files: Vec<LintFile> = (0..N)
        .map(|i| {
            memory_file(
                &format!("deploy_{i:05}.md"),
                &format!("Deploy notes {i}"),
                &format!("How we deploy the api service to staging, variant {i}"),
                &format!("Step {i}."),
            )
        })
        .collect();
    let options = LintOptions {
        check_index: false,
        ..LintOptions::default()
    };
    let report = lint_memory(&files, None, None, &options, NOW);
    let found = duplicate_findings(&report);
    // One finding for the whole cluster (was one per pair: about 50 million).
    assert_eq!(found.len(), 1, "{:?}", &found[..found.len().min(3)]);
    let cluster = found[0];
    assert_eq!(cluster.code, "NEAR_DUPLICATE_MEMORY");
    assert_eq!(cluster.file.as_deref(), Some("deploy_00000.md"));
    assert_eq!(cluster.related.len(), MAX_RELATED_FILES);
    assert!(
        cluster.message.contains("9999 other files"),
        "{}",
        cluster.message
    );
    assert!(report.findings.len() <= N, "{}", report.findings.len());
    // The work: comparisons and posting entries per file are bounded.
    let sets: Vec<_> = files
        .iter()
        .enumerate()
        .map(|(i, _)| {
            tokens(&format!(
                "Deploy notes {i} How we deploy the api service to staging, variant {i}"
            ))
        })
        .collect();
    let work = near_duplicate_clusters(&sets, 0.7, 2);
    assert_eq!(work.clusters.len(), 1);
    assert!(
        work.comparisons <= 2 * N,
        "{} comparisons",
        work.comparisons
    );
    assert!(
        work.visited <= N * MAX_POSTINGS_PER_SET,
        "{} visited",
        work.visited
    );
    // Exact copies of a long body: one DUPLICATE_MEMORY cluster, not one finding per copy.
    let long = "Run the integration tests against the staging database before every release; \
                never against production, and never with mocks in place of the database.";
    let copies: Vec<LintFile> = (0..2000)
        .map(|i| {
            memory_file(
                &format!("copy_{i:04}.md"),
                &format!("Copy {i}"),
                &format!("copy number {i}"),
                long,
            )
        })
        .collect();
    let report = lint_memory(&copies, None, None, &options, NOW);
    let found = duplicate_findings(&report);
    assert_eq!(found.len(), 1, "{:?}", &found[..found.len().min(3)]);
    assert_eq!(found[0].code, "DUPLICATE_MEMORY");
    assert!(
        found[0].message.contains("1999 other files"),
        "{}",
        found[0].message
    );
}
