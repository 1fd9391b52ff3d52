//! The lint checks over collected files and indexes. Pure.

use super::similarity::{cluster_near, tokens, Clusters};
use super::{LintFinding, LintOptions, Severity};
use crate::age::memory_age_days;
use crate::case::to_lowercase;
use crate::entrypoint::{lines_cut, prepare_index_for_model};
use crate::frontmatter::{parse_frontmatter, split_frontmatter};
use crate::index_entry::{index_entries, parse_index_entry};
use crate::jsstr::js_trim;
use crate::secrets::scan_for_secrets;
use crate::sort::earlier_equal;
use crate::store::names::check_memory_file;
use crate::types::{MemoryType, MAX_SURFACED_BYTES, MAX_SURFACED_LINES};
use std::collections::HashMap;

/// One memory file as lint sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct LintFile {
    /// Path relative to the memory directory (`team/x.md` for team memory).
    pub file: String,
    /// Its text.
    pub text: String,
    /// Modification time, ms.
    pub mtime_ms: f64,
}

/// One scope's index and the directory prefix of its files (`""` or `team/`).
#[derive(Clone, Debug, PartialEq)]
pub struct LintIndex {
    /// `""` for private memory, `team/` for team memory.
    pub prefix: String,
    /// The index text; `None` when there is no index file.
    pub text: Option<String>,
}

fn finding(code: &'static str, severity: Severity, message: String) -> LintFinding {
    LintFinding {
        code,
        severity,
        message,
        file: None,
        line: None,
        related: Vec::new(),
    }
}

fn at_file(mut f: LintFinding, file: &str) -> LintFinding {
    f.file = Some(file.to_owned());
    f
}

/// Lines of a file as the surfacing cap counts them (a final newline ends the last line).
fn line_count(text: &str) -> usize {
    let n = text.split('\n').count();
    if text.ends_with('\n') {
        n - 1
    } else {
        n
    }
}

/// The checks of one file: frontmatter, fields, secrets, age, size.
pub fn check_file(f: &LintFile, options: &LintOptions, now_ms: f64) -> Vec<LintFinding> {
    let mut out = Vec::new();
    check_file_into(f, options, now_ms, &mut out);
    out
}

/// [`check_file`], appending to `out`.
pub(crate) fn check_file_into(
    f: &LintFile,
    options: &LintOptions,
    now_ms: f64,
    out: &mut Vec<LintFinding>,
) {
    let file = f.file.as_str();
    if split_frontmatter(&f.text).is_none() {
        out.push(at_file(
            finding(
                "INVALID_FRONTMATTER",
                Severity::Error,
                "no frontmatter block (a `---` line, YAML, a closing `---` line) opens the file"
                    .to_owned(),
            ),
            file,
        ));
    } else {
        let parsed = parse_frontmatter(&f.text);
        if parsed.frontmatter.is_empty() {
            out.push(at_file(
                finding(
                    "INVALID_FRONTMATTER",
                    Severity::Error,
                    "the frontmatter is empty or not a YAML mapping".to_owned(),
                ),
                file,
            ));
        } else {
            if parsed.header.name.is_none() {
                out.push(at_file(
                    finding("MISSING_NAME", Severity::Warning, "no `name`".to_owned()),
                    file,
                ));
            }
            if parsed.header.description.is_none() {
                out.push(at_file(
                    finding(
                        "MISSING_DESCRIPTION",
                        Severity::Warning,
                        "no `description`: recall has nothing to judge this memory by".to_owned(),
                    ),
                    file,
                ));
            }
            let raw_type = parsed.frontmatter.get("type");
            if parsed.header.memory_type.is_none() {
                // Quote the value only when it is short and holds no secret (findings never
                // carry memory text that could).
                let what = match raw_type.and_then(|v| v.as_str()) {
                    Some(t)
                        if t.chars().count() <= 24
                            && crate::secrets::scan_for_secrets(t).is_empty() =>
                    {
                        format!("type {t:?} is not one of")
                    }
                    Some(_) => "its `type` is not one of".to_owned(),
                    None => "no `type`; it must be one of".to_owned(),
                };
                let types: Vec<&str> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
                out.push(at_file(
                    finding(
                        "UNKNOWN_TYPE",
                        Severity::Error,
                        format!("{what} {}", crate::jsstr::join(&types, ", ")),
                    ),
                    file,
                ));
            }
        }
    }
    let secrets = scan_for_secrets(&f.text);
    if !secrets.is_empty() {
        let labels: Vec<&str> = secrets.iter().map(|s| s.label.as_str()).collect();
        out.push(at_file(
            finding(
                "SECRET",
                Severity::Error,
                format!(
                    "contains potential secrets ({})",
                    crate::jsstr::join(&labels, ", ")
                ),
            ),
            file,
        ));
    }
    let age = memory_age_days(f.mtime_ms, now_ms);
    if age > options.stale_days {
        out.push(at_file(
            finding(
                "STALE_MEMORY",
                Severity::Info,
                format!(
                    "not changed for {age} days (threshold {})",
                    options.stale_days
                ),
            ),
            file,
        ));
    }
    let lines = line_count(&f.text);
    if f.text.len() > MAX_SURFACED_BYTES || lines > MAX_SURFACED_LINES {
        out.push(at_file(
            finding(
                "OVERSIZED_MEMORY",
                Severity::Warning,
                format!(
                    "{} bytes and {lines} lines: recall shows only the first {MAX_SURFACED_LINES} \
                     lines and {MAX_SURFACED_BYTES} bytes",
                    f.text.len()
                ),
            ),
            file,
        ));
    }
}

/// The checks of one index against the files of its scope (`files` relative to the memory
/// directory; only those under `index.prefix` count, and for the private index none in `team/`).
pub fn check_index(
    index: &LintIndex,
    files: &[LintFile],
    options: &LintOptions,
) -> Vec<LintFinding> {
    let mut out = Vec::new();
    let index_name = format!("{}MEMORY.md", index.prefix);
    let in_scope: Vec<&str> = files
        .iter()
        .map(|f| f.file.as_str())
        .filter_map(|f| f.strip_prefix(index.prefix.as_str()))
        .filter(|rel| !index.prefix.is_empty() || !rel.starts_with(crate::store::TEAM_DIR))
        .collect();
    let mut present: Vec<&str> = in_scope.clone();
    crate::sort::sort(&mut present);
    let text = index.text.as_deref().unwrap_or("");
    // Each file the index lists (validly, the first time), with that line's number.
    // A hash map: an index of thousands of lines would make sorted inserts quadratic.
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (n, raw_line) in text.split('\n').enumerate() {
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        let line_no = n + 1;
        let chars = line.chars().count();
        if chars > options.max_index_line_chars {
            let mut f = finding(
                "INDEX_LINE_TOO_LONG",
                Severity::Warning,
                format!(
                    "{chars} characters (keep index lines under {})",
                    options.max_index_line_chars
                ),
            );
            f.file = Some(index_name.clone());
            f.line = Some(line_no);
            out.push(f);
        }
        let Some(entry) = parse_index_entry(line) else {
            continue;
        };
        let target = entry
            .file
            .strip_prefix("./")
            .unwrap_or(&entry.file)
            .to_owned();
        let mut f = if check_memory_file(&target).is_err()
            || present.binary_search(&target.as_str()).is_err()
        {
            finding(
                "DANGLING_INDEX_ENTRY",
                Severity::Error,
                format!(
                    "the entry points at {:?}, which is not a memory file here",
                    entry.file
                ),
            )
        } else if let Some(first) = first_line.get(&target) {
            finding(
                "DUPLICATE_INDEX_ENTRY",
                Severity::Warning,
                format!("{target} is already listed on line {first}"),
            )
        } else {
            first_line.insert(target, line_no);
            continue;
        };
        f.file = Some(index_name.clone());
        f.line = Some(line_no);
        out.push(f);
    }
    for rel in in_scope {
        if !first_line.contains_key(rel) {
            out.push(at_file(
                finding(
                    "UNINDEXED_FILE",
                    Severity::Warning,
                    format!("not listed in {index_name}"),
                ),
                &format!("{}{rel}", index.prefix),
            ));
        }
    }
    let prepared = prepare_index_for_model(text);
    let cut = lines_cut(&prepared, &options.index_caps);
    if !cut.is_empty() {
        let trimmed = js_trim(&prepared);
        let lost: Vec<String> = index_entries(trimmed)
            .into_iter()
            .filter(|(n, _)| cut.contains(n))
            .map(|(_, e)| e.file)
            .collect();
        let mut f = finding(
            "INDEX_OVER_CAP",
            Severity::Warning,
            format!(
                "{index_name} is over its caps ({} lines, {} UTF-16 units); from line {} on, \
                 the model does not see it ({} entries cut)",
                cut.end,
                crate::jsstr::utf16_len(trimmed),
                cut.start + 1,
                lost.len()
            ),
        );
        f.file = Some(index_name);
        f.related = lost;
        out.push(f);
    }
    out
}

/// Shortest trimmed body (in bytes) that makes two files duplicates by itself: two different
/// memories may well share a short body ("Use pnpm."), a long identical one is a copy.
pub const MIN_DUPLICATE_BODY_BYTES: usize = 120;
/// Most clusters reported per code; the rest are left out.
pub const MAX_DUPLICATE_CLUSTERS: usize = 200;
/// Most files a cluster's finding lists in `related` (its message gives the full count).
pub const MAX_RELATED_FILES: usize = 20;

/// Duplicates, one finding per cluster on the cluster's first file (path order), the others in
/// `related`: `DUPLICATE_MEMORY` for files with the same name and description (ignoring case)
/// or the same body of at least [`MIN_DUPLICATE_BODY_BYTES`]; `NEAR_DUPLICATE_MEMORY` for files
/// whose name + description tokens reach the Jaccard threshold (clusters joined through any
/// member; exact duplicates of one another are not reported again). The work is bounded (see
/// [`super::near_duplicate_clusters`]) and so is the output ([`MAX_DUPLICATE_CLUSTERS`],
/// [`MAX_RELATED_FILES`]).
pub fn check_duplicates(files: &[LintFile], options: &LintOptions) -> Vec<LintFinding> {
    let parsed: Vec<_> = files.iter().map(|f| parse_frontmatter(&f.text)).collect();
    let body_keys: Vec<Option<&str>> = parsed
        .iter()
        .map(|p| Some(js_trim(&p.body)).filter(|b| b.len() >= MIN_DUPLICATE_BODY_BYTES))
        .collect();
    let header_keys: Vec<Option<(String, String)>> = parsed
        .iter()
        .map(|p| match (&p.header.name, &p.header.description) {
            (Some(n), Some(d)) => Some((to_lowercase(n), to_lowercase(d))),
            _ => None,
        })
        .collect();
    let mut exact = Clusters::new(files.len());
    for earlier in [earlier_equal(&body_keys), earlier_equal(&header_keys)] {
        for (i, j) in earlier.iter().enumerate() {
            if let Some(j) = j {
                exact.union(i, *j);
            }
        }
    }
    let exact_groups = exact.groups();
    let sets: Vec<_> = parsed
        .iter()
        .map(|p| {
            let text = format!(
                "{} {}",
                p.header.name.as_deref().unwrap_or(""),
                p.header.description.as_deref().unwrap_or("")
            );
            tokens(&text)
        })
        .collect();
    // Near clusters start from the exact ones (so their members are not compared again); a near
    // cluster is reported when it holds more than one exact cluster.
    let mut near = Clusters::new(files.len());
    for group in &exact_groups {
        for &i in group.iter().skip(1) {
            if let Some(&first) = group.first() {
                near.union(first, i);
            }
        }
    }
    cluster_near(&sets, options.near_duplicate_threshold, 2, &mut near);
    let near_groups: Vec<Vec<usize>> = near
        .groups()
        .into_iter()
        .filter(|g| {
            let first = g.first().map(|&i| exact.find(i));
            g.iter().any(|&i| Some(exact.find(i)) != first)
        })
        .collect();
    let mut out = Vec::new();
    for group in exact_groups.iter().take(MAX_DUPLICATE_CLUSTERS) {
        out.extend(cluster_finding(
            files,
            group,
            "DUPLICATE_MEMORY",
            Severity::Warning,
            "the same memory as",
        ));
    }
    for group in near_groups.iter().take(MAX_DUPLICATE_CLUSTERS) {
        out.extend(cluster_finding(
            files,
            group,
            "NEAR_DUPLICATE_MEMORY",
            Severity::Info,
            "name and description overlap with",
        ));
    }
    out
}

/// One finding for a cluster: on its first file, the others related.
fn cluster_finding(
    files: &[LintFile],
    group: &[usize],
    code: &'static str,
    severity: Severity,
    what: &str,
) -> Option<LintFinding> {
    let (&first, rest) = group.split_first()?;
    let file = files.get(first)?;
    let others: Vec<String> = rest
        .iter()
        .filter_map(|&i| files.get(i).map(|f| f.file.clone()))
        .collect();
    let shown = others.len().min(MAX_RELATED_FILES);
    let message = match others.as_slice() {
        [one] => format!("{what} {one}"),
        _ if others.len() > shown => format!(
            "{what} {} other files (the first {shown} listed)",
            others.len()
        ),
        _ => format!("{what} {} other files", others.len()),
    };
    let mut f = at_file(finding(code, severity, message), &file.file);
    f.related = others.into_iter().take(MAX_RELATED_FILES).collect();
    Some(f)
}
