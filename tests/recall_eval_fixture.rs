//! The recall-evaluation fixture is well formed: every query file (dev, test, holdout,
//! holdout2, holdout3) and every memory directory it names. Nothing here ranks anything; it only
//! checks the labelled data, so a typo in a label or a missing index line fails here rather than
//! skewing a metric.

use memdir::frontmatter::parse_frontmatter;
use memdir::MemoryType;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

const QUERY_FILES: [&str; 5] = [
    "queries_dev.jsonl",
    "queries_test.jsonl",
    "queries_holdout.jsonl",
    "queries_holdout2.jsonl",
    "queries_holdout3.jsonl",
];
const KINDS: [&str; 7] = [
    "short",
    "task",
    "code",
    "trace",
    "paraphrase",
    "typo",
    "none",
];

/// One line of a query file. JSON is read through serde_yaml (a JSON line is a YAML flow
/// mapping); unknown fields are refused so a misspelt key cannot pass unnoticed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Query {
    id: String,
    project: String,
    query: String,
    kind: String,
    must: Vec<String>,
    helpful: Vec<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall_eval")
}

fn read_queries(file: &str) -> Vec<Query> {
    let path = root().join(file);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        assert!(
            line.starts_with('{') && line.ends_with('}'),
            "{file}:{}: not a JSON object",
            n + 1
        );
        let q: Query =
            serde_yaml::from_str(line).unwrap_or_else(|e| panic!("{file}:{}: {e}", n + 1));
        out.push(q);
    }
    assert!(!out.is_empty(), "{file}: no queries");
    out
}

/// The frontmatter fields of a memory file, read by the crate's own parser (the one a scan
/// uses, lenient as Claude Code's is), or a description of what is missing.
fn memory_fields(text: &str) -> Result<(String, String, MemoryType), String> {
    if !text.starts_with("---\n") {
        return Err("does not start with ---".into());
    }
    let parsed = parse_frontmatter(text);
    let fields = parsed.header;
    let name = fields.name.filter(|v| !v.trim().is_empty());
    let description = fields.description.filter(|v| !v.trim().is_empty());
    match (name, description, fields.memory_type) {
        (Some(n), Some(d), Some(t)) if !parsed.body.trim().is_empty() => Ok((n, d, t)),
        (n, d, t) => Err(format!(
            "frontmatter incomplete or no body: name {n:?}, description {d:?}, type {t:?}; {:?}",
            parsed.diagnostics
        )),
    }
}

/// The file names an index links to, in order: `- [Title](file.md) — hook`.
fn index_links(index: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (n, line) in index.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = || {
            format!(
                "MEMORY.md:{}: not `- [Title](file.md) — hook`: {line}",
                n + 1
            )
        };
        let rest = line.strip_prefix("- [").ok_or_else(bad)?;
        let (title, rest) = rest.split_once("](").ok_or_else(bad)?;
        let (file, hook) = rest.split_once(')').ok_or_else(bad)?;
        let hook = hook.strip_prefix(" — ").ok_or_else(bad)?;
        if title.trim().is_empty() || hook.trim().is_empty() || !file.ends_with(".md") {
            return Err(bad());
        }
        out.push(file.to_owned());
    }
    Ok(out)
}

/// Checks one memory directory; returns its memory file names.
fn check_project(dir: &Path, errors: &mut Vec<String>) -> HashSet<String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let index = match fs::read_to_string(dir.join("MEMORY.md")) {
        Ok(t) => t,
        Err(e) => {
            errors.push(format!("{name}/MEMORY.md: {e}"));
            return HashSet::new();
        }
    };
    let links = match index_links(&index) {
        Ok(l) => l,
        Err(e) => {
            errors.push(format!("{name}/{e}"));
            Vec::new()
        }
    };
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for link in &links {
        *counts.entry(link.as_str()).or_default() += 1;
    }
    let mut files = HashSet::new();
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{name}: {e}"));
    for entry in entries {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if file == "MEMORY.md" || !file.ends_with(".md") {
            continue;
        }
        let text = fs::read_to_string(dir.join(&file)).unwrap();
        if let Err(e) = memory_fields(&text) {
            errors.push(format!("{name}/{file}: {e}"));
        }
        let n = counts.get(file.as_str()).copied().unwrap_or(0);
        if n != 1 {
            errors.push(format!("{name}/{file}: listed {n} times in MEMORY.md"));
        }
        files.insert(file);
    }
    for link in counts.keys() {
        if !files.contains(*link) {
            errors.push(format!("{name}/MEMORY.md: links to missing {link}"));
        }
    }
    if files.is_empty() {
        errors.push(format!("{name}: no memories"));
    }
    files
}

#[test]
fn every_query_file_and_memory_directory_is_well_formed() {
    let mut errors = Vec::new();
    let mut projects: HashMap<String, HashSet<String>> = HashMap::new();
    let mut ids = HashSet::new();
    for file in QUERY_FILES {
        for q in read_queries(file) {
            let at = format!("{file} {}", q.id);
            if q.id.trim().is_empty() || !ids.insert(q.id.clone()) {
                errors.push(format!("{at}: empty or duplicate id"));
            }
            if q.query.trim().is_empty() {
                errors.push(format!("{at}: empty query"));
            }
            if !KINDS.contains(&q.kind.as_str()) {
                errors.push(format!("{at}: unknown kind {}", q.kind));
            }
            if q.kind == "none" {
                if !q.must.is_empty() || !q.helpful.is_empty() {
                    errors.push(format!("{at}: a none query with labels"));
                }
            } else if q.must.is_empty() {
                errors.push(format!("{at}: no must"));
            }
            let dir = root().join(&q.project);
            if q.project.is_empty() || q.project.contains(['/', '\\', '.']) || !dir.is_dir() {
                errors.push(format!("{at}: no project directory {:?}", q.project));
                continue;
            }
            let files = projects
                .entry(q.project.clone())
                .or_insert_with(|| check_project(&dir, &mut errors));
            let mut seen = HashSet::new();
            for label in q.must.iter().chain(&q.helpful) {
                if !files.contains(label) {
                    errors.push(format!("{at}: no memory {}/{label}", q.project));
                }
                if !seen.insert(label) {
                    errors.push(format!("{at}: {label} labelled twice"));
                }
            }
        }
    }
    // Every memory directory of the fixture is used by some query file.
    for entry in fs::read_dir(root()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !projects.contains_key(&name) {
                errors.push(format!("{name}: no query names this directory"));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn the_checks_catch_what_they_claim_to() {
    assert!(index_links("- [A](a.md) — hook\n").is_ok());
    assert!(index_links("- [A](a.md) hook\n").is_err());
    assert!(index_links("* [A](a.md) — hook\n").is_err());
    assert!(index_links("- [A](a.txt) — hook\n").is_err());
    let ok = memory_fields("---\nname: N\ndescription: \"D\"\ntype: user\n---\n\nbody\n");
    assert_eq!(ok, Ok(("N".into(), "D".into(), MemoryType::User)));
    for bad in [
        "name: N\ndescription: D\ntype: user\n\nbody\n",
        "---\nname: N\ndescription: D\ntype: user\n",
        "---\nname: N\ndescription: D\ntype: person\n---\nbody\n",
        "---\nname: N\ntype: user\n---\nbody\n",
        "---\nname: N\ndescription: D\ntype: user\n---\n\n",
    ] {
        assert!(memory_fields(bad).is_err(), "{bad}");
    }
    let q: Result<Query, _> = serde_yaml::from_str(
        r#"{"id": "x", "project": "p", "query": "q\nline", "kind": "short", "must": [], "helpful": [], "extra": 1}"#,
    );
    assert!(q.is_err());
    let q: Query = serde_yaml::from_str(
        r#"{"id": "x", "project": "p", "query": "a \"b\"\nc", "kind": "short", "must": ["m.md"], "helpful": []}"#,
    )
    .unwrap();
    assert_eq!(q.query, "a \"b\"\nc");
}
