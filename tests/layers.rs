//! The crate's import graph, checked: no cycle between top-level modules, no import running up
//! the layer table, no `impl … Memdir` outside `src/memdir.rs`, and the store's fields private.
//!
//! Every `src/**/*.rs` file is read as text; each `crate::…` path (in `use` lists and inline,
//! `super::` chains resolved, comments skipped) becomes an edge from the file's unit to the unit
//! the path names. A unit is a top-level module (`src/x.rs` or `src/x/`), except in the two
//! folders that hold both pure code and a feature: `prompt/load.rs` (loading the prompt from a
//! store) and `recall/find.rs` (recall over a store) are units of their own; a path through the folder's re-exports is followed to the file that defines the item.
//! Run with `--nocapture` to see the floors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom to top. A unit may import only from its own floor or below.
const FLOORS: &[(&str, &[&str])] = &[
    (
        "pure",
        &[
            "age",
            "case",
            "entrypoint",
            "error",
            "find",
            "frontmatter",
            "future",
            "host",
            "index_entry",
            "json",
            "jsstr",
            "lone_surrogates",
            "library_files",
            "manifest",
            "mem_fs",
            "path_key",
            "paths",
            "prompt",
            "recall",
            "secrets",
            "size",
            "sort",
            "str_map",
            "test_host",
            "test_rng",
            "types",
        ],
    ),
    ("store", &["store"]),
    (
        "features",
        &[
            "consolidate",
            "extract",
            "lint",
            "memory_tool",
            "prompt/load",
            "recall/embed",
            "recall/find",
            "sync",
        ],
    ),
    ("façade", &["memdir"]),
    ("boundary", &["wasm"]),
];

/// Files that are units of their own inside a folder of a lower floor.
const SPLIT_UNITS: &[&str] = &["prompt/load", "recall/embed", "recall/find"];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file (`src/recall/find.rs` → `["recall", "find"]`, `mod.rs` → its
/// folder), relative to the crate root.
fn module_path(rel: &str) -> Vec<String> {
    let trimmed = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = trimmed.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The text of a file without comments (line comments outside strings; doc comments too).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut quotes = 0;
        let mut cut = line.len();
        let bytes = line.as_bytes();
        for i in 0..bytes.len() {
            match bytes[i] {
                b'"' if i == 0 || bytes[i - 1] != b'\\' => quotes += 1,
                b'/' if quotes % 2 == 0 && bytes.get(i + 1) == Some(&b'/') => {
                    cut = i;
                    break;
                }
                _ => {}
            }
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Paths (as segment lists) that follow `prefix` (`crate::` or `super::`) in `code`, with
/// `{a::b, c}` groups expanded to their first two segments.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        let after = &rest[i + prefix.len()..];
        rest = after;
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            continue;
        }
        out.extend(expand(after));
    }
    out
}

/// Segment lists at the start of `text` (a path, or a `{…}` group of paths).
fn expand(text: &str) -> Vec<Vec<String>> {
    if let Some(group) = text.strip_prefix('{') {
        let mut depth = 1;
        let mut end = group.len();
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let inner = &group[..end];
        let mut items = Vec::new();
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&inner[start..]);
        return items
            .into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .flat_map(expand)
            .collect();
    }
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let len = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if len == 0 {
            if rest.starts_with('{') {
                return expand(rest)
                    .into_iter()
                    .map(|tail| segments.iter().cloned().chain(tail).collect())
                    .collect();
            }
            break;
        }
        segments.push(rest[..len].to_owned());
        rest = &rest[len..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    if segments.is_empty() {
        Vec::new()
    } else {
        vec![segments]
    }
}

/// Item name → defining submodule, from `pub use sub::{…};` lines of a folder's `mod.rs`.
fn reexports(mod_rs: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for path in paths_after(&code_of(mod_rs), "pub use ") {
        if let [sub, .., item] = path.as_slice() {
            map.insert(item.clone(), sub.clone());
        }
    }
    map
}

struct Crate {
    /// The top-level modules.
    modules: BTreeSet<String>,
    /// Root re-exports (`crate::Memdir` → `memdir`).
    root: BTreeMap<String, String>,
    /// Per split folder, its re-exports.
    folders: BTreeMap<String, BTreeMap<String, String>>,
}

impl Crate {
    /// The unit an absolute module path (from the crate root) lands in.
    fn unit(&self, path: &[String]) -> Option<String> {
        let top = path.first()?;
        let top = match self.root.get(top) {
            Some(module) if !self.modules.contains(top) => module.clone(),
            _ => top.clone(),
        };
        if let (Some(map), Some(second)) = (self.folders.get(&top), path.get(1)) {
            let sub = map.get(second).unwrap_or(second);
            let candidate = format!("{top}/{sub}");
            if SPLIT_UNITS.contains(&candidate.as_str()) {
                return Some(candidate);
            }
        }
        Some(top)
    }
}

fn file_unit(module: &[String]) -> String {
    if module.len() >= 2 {
        let candidate = format!("{}/{}", module[0], module[1]);
        if SPLIT_UNITS.contains(&candidate.as_str()) {
            return candidate;
        }
    }
    module.first().cloned().unwrap_or_default()
}

fn top_of(unit: &str) -> &str {
    unit.split('/').next().unwrap_or(unit)
}

struct Graph {
    /// unit → units it imports (other than itself), with one example file per edge.
    edges: BTreeMap<String, BTreeMap<String, String>>,
    impl_memdir: Vec<String>,
}

fn read_graph() -> Graph {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let read = |rel: &str| std::fs::read_to_string(src.join(rel)).unwrap_or_default();
    let modules = files
        .iter()
        .filter_map(|f| f.strip_prefix(&src).ok())
        .filter_map(|r| r.components().next())
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    let mut krate = Crate {
        modules,
        root: reexports(&read("lib.rs")),
        folders: BTreeMap::new(),
    };
    for unit in SPLIT_UNITS {
        let folder = top_of(unit).to_owned();
        let map = reexports(&read(&format!("{folder}/mod.rs")));
        krate.folders.insert(folder, map);
    }
    let impl_re_word = |line: &str| {
        let t = line.trim_start();
        t.starts_with("impl") && t.split(|c: char| !is_ident(c)).any(|w| w == "Memdir")
    };
    let mut graph = Graph {
        edges: BTreeMap::new(),
        impl_memdir: Vec::new(),
    };
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "lib.rs" {
            continue;
        }
        let module = module_path(&rel);
        let from = file_unit(&module);
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        if rel != "memdir.rs" {
            for line in code.lines() {
                if impl_re_word(line) {
                    graph.impl_memdir.push(format!("{rel}: {}", line.trim()));
                }
            }
        }
        let mut targets: Vec<Vec<String>> = paths_after(&code, "crate::");
        // `super::` chains: resolve against the file's module path.
        for path in paths_after(&code, "super::") {
            let ups = 1 + path.iter().take_while(|s| *s == "super").count();
            let rest = &path[ups - 1..];
            let resolve = |ups: usize| -> Vec<String> {
                let keep = module.len().saturating_sub(ups);
                module[..keep].iter().chain(rest).cloned().collect()
            };
            let mut target = resolve(ups);
            // Inside an inline module (`mod tests { … }`) `super` starts one level lower.
            if !target.first().is_some_and(|t| krate.modules.contains(t)) {
                target = resolve(ups - 1);
            }
            targets.push(target);
        }
        let entry = graph.edges.entry(from.clone()).or_default();
        for target in targets {
            if let Some(to) = krate.unit(&target) {
                if to != from && !to.is_empty() {
                    entry.entry(to).or_insert_with(|| rel.clone());
                }
            }
        }
    }
    graph
}

fn floor_of(unit: &str) -> Option<usize> {
    FLOORS.iter().position(|(_, units)| units.contains(&unit))
}

/// A cycle among top-level modules, if any (as the list of modules around it).
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|n| n == next).unwrap_or(0);
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(node, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn layers_hold() {
    let graph = read_graph();
    let mut problems = Vec::new();

    // Every unit has a floor.
    for unit in graph.edges.keys() {
        if floor_of(unit).is_none() {
            problems.push(format!("{unit}: not in the layer table"));
        }
    }

    // (b) No import runs up.
    for (from, tos) in &graph.edges {
        let Some(f) = floor_of(from) else { continue };
        for (to, example) in tos {
            match floor_of(to) {
                Some(t) if t > f => problems.push(format!(
                    "{from} ({}) imports {to} ({}) upward, e.g. in src/{example}",
                    FLOORS[f].0, FLOORS[t].0
                )),
                None => problems.push(format!("{to} (imported by {from}): not in the layer table")),
                _ => {}
            }
        }
    }

    // (a) No cycle between top-level modules (folders whole).
    let mut tops: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in &graph.edges {
        let f = top_of(from).to_owned();
        for to in tos.keys() {
            let t = top_of(to).to_owned();
            if t != f {
                tops.entry(f.clone()).or_default().insert(t);
            }
        }
    }
    if let Some(cycle) = find_cycle(&tops) {
        problems.push(format!("import cycle: {}", cycle.join(" → ")));
    }

    // (c) `impl … Memdir` only in src/memdir.rs.
    for line in &graph.impl_memdir {
        problems.push(format!("impl of Memdir outside src/memdir.rs: {line}"));
    }

    // The floors, for the note.
    println!("Layer graph (bottom to top); each unit with the units it imports:");
    for (i, (name, units)) in FLOORS.iter().enumerate().rev() {
        println!("floor {i} — {name}");
        for unit in *units {
            let tos: Vec<&str> = graph
                .edges
                .get(*unit)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            println!("  {unit:<15} → {}", tos.join(", "));
        }
    }
    assert!(
        problems.is_empty(),
        "layer problems:\n{}",
        problems.join("\n")
    );
}

/// (d) The store's fields are private (no `pub` of any kind), so the compiler refuses every
/// access to them from outside `src/store/` (the struct lives in `src/store/mod.rs`, whose
/// private items only that folder sees).
#[test]
fn store_fields_are_private() {
    let text = std::fs::read_to_string(src_dir().join("store/mod.rs")).unwrap();
    let code = code_of(&text);
    let start = code
        .find("pub struct Store<")
        .expect("Store is defined in src/store/mod.rs");
    let body_start = start + code[start..].find('{').unwrap();
    let body_end = body_start + code[body_start..].find("\n}").unwrap();
    let fields: Vec<&str> = code[body_start + 1..body_end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(
        fields.len() >= 6,
        "the Store fields were not found: {fields:?}"
    );
    let public: Vec<&&str> = fields.iter().filter(|l| l.starts_with("pub")).collect();
    assert!(
        public.is_empty(),
        "Store fields must stay private: {public:?}"
    );
}

/// The extraction itself: grouped `use` lists, `super::` chains and comments.
#[test]
fn extracts_paths() {
    let code = code_of(
        "use crate::{a::B, c::{d, e}};\n// crate::hidden::X\nlet x = crate::f::g(1); \"//\"; crate::h::I;\n",
    );
    let heads: Vec<String> = paths_after(&code, "crate::")
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(heads, ["a::B", "c::d", "c::e", "f::g", "h::I"]);
    assert_eq!(module_path("recall/find.rs"), ["recall", "find"]);
    assert_eq!(module_path("store/mod.rs"), ["store"]);
    assert_eq!(file_unit(&module_path("recall/find.rs")), "recall/find");
    assert_eq!(file_unit(&module_path("recall/ranker.rs")), "recall");
    let mut cyclic = BTreeMap::new();
    cyclic.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    cyclic.insert("b".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(find_cycle(&cyclic).unwrap(), ["a", "b", "a"]);
    cyclic.remove("b");
    assert!(find_cycle(&cyclic).is_none());
}
