//! `lint`: a report over a memory directory, one finding per problem, each with a stable code.
//!
//! | code | severity | what |
//! |---|---|---|
//! | `INVALID_FRONTMATTER` | error | no frontmatter block, or one that is not a YAML mapping |
//! | `MISSING_NAME` | warning | no `name` |
//! | `MISSING_DESCRIPTION` | warning | no `description` (or a falsy one) |
//! | `UNKNOWN_TYPE` | error | `type` missing or not one of the four (case-sensitive) |
//! | `SECRET` | error | the secret scanner fires (labels only) |
//! | `STALE_MEMORY` | info | unchanged for more than `stale_days` (default 90) |
//! | `OVERSIZED_MEMORY` | warning | over the surfacing cap (200 lines or 4,096 bytes) |
//! | `DANGLING_INDEX_ENTRY` | error | an index entry points at no memory file |
//! | `DUPLICATE_INDEX_ENTRY` | warning | two index entries point at the same file |
//! | `UNINDEXED_FILE` | warning | a memory file no index entry points at |
//! | `INDEX_LINE_TOO_LONG` | warning | an index line over 150 characters |
//! | `INDEX_OVER_CAP` | warning | the index is over 200 lines or 25,000 units; `related` lists the entries the model would not see |
//! | `DUPLICATE_MEMORY` | warning | files with the same name and description (ignoring case), or the same body of 120 bytes or more: one finding per cluster, on its first file, the others in `related` |
//! | `NEAR_DUPLICATE_MEMORY` | info | name + description tokens overlap by a Jaccard similarity ≥ 0.7 (stop words dropped; at least 2 tokens each): one finding per cluster, as above |
//!
//! Checked: every `.md` file below the directory except `MEMORY.md` files and the daily logs in
//! `logs/`; `team/` files against `team/MEMORY.md`. Directory symlinks are not followed; a file
//! symlink is read only when it resolves inside the memory directory, and an index that leads
//! outside is refused with `PATH_SYMLINK_ESCAPE` (reads are contained like writes, see
//! [`Store::read_contained`]). At most [`MAX_LINT_FILES`] files, [`MAX_LINT_DEPTH`] levels and
//! [`crate::store::MAX_SCAN_ENTRIES`] directory entries are looked at.
//! Index checks are skipped when `check_index` is false (hosts that run without an index).
//!
//! ```
//! use memdir::lint::{lint_memory, LintFile, LintOptions};
//! let files = [LintFile { file: "a.md".into(), text: "no header".into(), mtime_ms: 0.0 }];
//! let report = lint_memory(&files, Some("- [A](a.md) — x\n- [B](b.md) — y\n"), None, &LintOptions::default(), 0.0);
//! assert_eq!(report.codes(), ["INVALID_FRONTMATTER", "DANGLING_INDEX_ENTRY"]);
//! ```

mod checks;
mod similarity;

pub use checks::{
    check_duplicates, check_file, check_index, LintFile, LintIndex, MAX_DUPLICATE_CLUSTERS,
    MAX_RELATED_FILES, MIN_DUPLICATE_BODY_BYTES,
};
pub use similarity::{
    jaccard, near_duplicate_clusters, similar_pairs, tokens, NearDuplicates,
    MAX_CANDIDATES_PER_SET, MAX_POSTINGS_PER_SET,
};

use crate::entrypoint::TruncateOptions;
use crate::error::Result;
use crate::host::{Clock, EntryKind, FieldValue, FileSystem, Telemetry};
use crate::store::{Scope, Store, LOGS_DIR, MAX_SCAN_ENTRIES, TEAM_DIR};
use crate::types::ENTRYPOINT_NAME;
use serde::Serialize;

/// Most files lint reads.
pub const MAX_LINT_FILES: usize = 10_000;
/// Deepest directory level lint enters.
pub const MAX_LINT_DEPTH: usize = 16;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Broken: the memory system misreads it.
    Error,
    /// Works, but not as intended.
    Warning,
    /// Worth a look.
    Info,
}

/// One problem.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LintFinding {
    /// Stable code (see the module docs).
    pub code: &'static str,
    /// How bad.
    pub severity: Severity,
    /// What, for people. Never memory text or a secret.
    pub message: String,
    /// The file, relative to the memory directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The 1-based line, for index findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Other files involved: the original of a duplicate, the entries an over-cap index cuts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
}

/// Thresholds.
#[derive(Clone, Debug, PartialEq)]
pub struct LintOptions {
    /// Days after which a memory is stale.
    pub stale_days: u64,
    /// Jaccard similarity at or above which two memories are near-duplicates.
    pub near_duplicate_threshold: f64,
    /// Longest index line, in characters.
    pub max_index_line_chars: usize,
    /// The index caps.
    pub index_caps: TruncateOptions,
    /// Check the indexes (dangling entries, unindexed files, caps, long lines).
    pub check_index: bool,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions {
            stale_days: 90,
            near_duplicate_threshold: 0.7,
            max_index_line_chars: 150,
            index_caps: TruncateOptions::default(),
            check_index: true,
        }
    }
}

/// The findings, files first (in path order), then indexes, then duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LintReport {
    /// Every finding.
    pub findings: Vec<LintFinding>,
    /// Memory files checked.
    pub files_checked: usize,
}

impl LintReport {
    /// The codes of the findings, in order.
    pub fn codes(&self) -> Vec<&'static str> {
        self.findings.iter().map(|f| f.code).collect()
    }

    /// True when a finding is an error.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// Lint collected files (relative to the memory directory, daily logs left out) against the
/// private index and, when given, the team index. Pure.
pub fn lint_memory(
    files: &[LintFile],
    index: Option<&str>,
    team_index: Option<&str>,
    options: &LintOptions,
    now_ms: f64,
) -> LintReport {
    lint_owned(files.to_vec(), index, team_index, options, now_ms)
}

/// [`lint_memory`] on files it may reorder.
fn lint_owned(
    mut sorted: Vec<LintFile>,
    index: Option<&str>,
    team_index: Option<&str>,
    options: &LintOptions,
    now_ms: f64,
) -> LintReport {
    crate::sort::sort_by(&mut sorted, |a, b| a.file.cmp(&b.file));
    let mut findings: Vec<LintFinding> = Vec::new();
    for f in &sorted {
        checks::check_file_into(f, options, now_ms, &mut findings);
    }
    if options.check_index {
        findings.extend(check_index(
            &LintIndex {
                prefix: String::new(),
                text: index.map(str::to_owned),
            },
            &sorted,
            options,
        ));
        let has_team_files = sorted.iter().any(|f| f.file.starts_with(TEAM_DIR));
        if team_index.is_some() || has_team_files {
            findings.extend(check_index(
                &LintIndex {
                    prefix: TEAM_DIR.to_owned(),
                    text: team_index.map(str::to_owned),
                },
                &sorted,
                options,
            ));
        }
    }
    findings.extend(check_duplicates(&sorted, options));
    LintReport {
        findings,
        files_checked: sorted.len(),
    }
}

/// Lint `store`'s memory directory (see the module docs). Reads only; allowed in every
/// mode. Unreadable files and directories are skipped; a failure to read an index other
/// than "missing" is an error.
///
/// ```
/// use memdir::lint::{lint_store, LintOptions};
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let fs = MemFs::new();
/// fs.insert_file("/m/a.md", "no frontmatter\n");
/// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::ReadOnly, StoreConfig::default());
/// let report = block_on(lint_store(&store, &LintOptions::default())).unwrap();
/// assert_eq!(report.files_checked, 1);
/// assert!(!report.findings.is_empty());
/// ```
pub async fn lint_store<F: FileSystem, C: Clock, T: Telemetry>(
    store: &Store<F, C, T>,
    options: &LintOptions,
) -> Result<LintReport> {
    let files = collect(store).await;
    let index = store.read_index_optional(Scope::Private).await?;
    let team_index = store.read_index_optional(Scope::Team).await?;
    let report = lint_owned(
        files,
        index.as_deref(),
        team_index.as_deref(),
        options,
        store.clock().now_ms(),
    );
    let count = |s: Severity| {
        FieldValue::Num(report.findings.iter().filter(|f| f.severity == s).count() as f64)
    };
    store.telemetry().emit(
        "memdir_lint",
        &[
            (
                "files_checked",
                FieldValue::Num(report.files_checked as f64),
            ),
            ("errors", count(Severity::Error)),
            ("warnings", count(Severity::Warning)),
            ("infos", count(Severity::Info)),
        ],
    );
    Ok(report)
}

async fn collect<F: FileSystem, C: Clock, T: Telemetry>(store: &Store<F, C, T>) -> Vec<LintFile> {
    let mut out = Vec::new();
    let mut queue = vec![(String::new(), 0usize)];
    let mut seen = 0usize;
    while let Some((rel_dir, depth)) = queue.pop() {
        let abs_dir = format!("{}{rel_dir}", store.dir());
        let Ok(entries) = store.fs().read_dir(&abs_dir).await else {
            continue;
        };
        for entry in entries {
            seen += 1;
            if seen > MAX_SCAN_ENTRIES {
                return out;
            }
            let name = entry.name;
            if name.is_empty() || name.contains('/') || name == "." || name == ".." {
                continue;
            }
            let rel = format!("{rel_dir}{name}");
            let mut abs = format!("{abs_dir}{name}");
            let kind = match entry.kind {
                // A file link is read at its real path, and only when that is inside.
                EntryKind::Symlink => match store.contained_real_path(&abs).await {
                    Ok(Some(real)) => match store.fs().stat(&real).await {
                        Ok(st) if st.kind == EntryKind::File => {
                            abs = real;
                            EntryKind::File
                        }
                        _ => continue,
                    },
                    _ => continue,
                },
                kind => kind,
            };
            match kind {
                EntryKind::Dir if depth < MAX_LINT_DEPTH && format!("{rel}/") != LOGS_DIR => {
                    queue.push((format!("{rel}/"), depth + 1));
                }
                EntryKind::File if name.ends_with(".md") && name != ENTRYPOINT_NAME => {
                    if out.len() >= MAX_LINT_FILES {
                        return out;
                    }
                    if let Some(file) = read_file(store, &abs, rel).await {
                        out.push(file);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

async fn read_file<F: FileSystem, C: Clock, T: Telemetry>(
    store: &Store<F, C, T>,
    abs: &str,
    rel: String,
) -> Option<LintFile> {
    let st = store.fs().stat(abs).await.ok()?;
    let text = store.fs().read_file(abs).await.ok()?;
    Some(LintFile {
        file: rel,
        text,
        mtime_ms: st.mtime_ms,
    })
}
