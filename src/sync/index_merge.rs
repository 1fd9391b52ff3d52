//! `team/MEMORY.md` merged by entries rather than replaced as text (issue 19, item 17).
//!
//! A sync never copies one side's index over the other's. It takes a *base* text (the server's
//! on a pull, the local one on a push: the side that wins per key), appends the other side's
//! entries for files the base does not index, then re-derives the result from the files that
//! exist: entries for memory files that are gone are dropped, and memory files without an entry
//! get one from their frontmatter (`- [name](file) — description`). Every other line of the
//! base stays byte for byte.

use crate::frontmatter::parse_frontmatter_head;
use crate::index_entry::{format_index_entry, index_entries, parse_index_entry, IndexEntry};
use crate::paths::normalize;
use crate::secrets::scan_for_secrets;
use crate::store::names::check_memory_file;
use crate::str_map::StrMap;

/// A set of keys: a [`StrMap`] with empty values (the map type the module already holds, so no
/// new code in the wasm module).
pub(crate) type KeySet = StrMap;

/// The key an index entry's target names, when it names a memory file under the team directory
/// (`./a.md` → `a.md`); `None` for anything else (links out, URLs), which the merge leaves alone.
fn entry_key(target: &str) -> Option<String> {
    let key = normalize(target);
    check_memory_file(&key).ok().map(|()| key)
}

/// The index entry a memory file's frontmatter gives it: its `name` as the title and its
/// `description` as the hook; `None` without a `name` (not a memory this merge can describe).
pub(crate) fn entry_from_frontmatter(key: &str, text: &str) -> Option<IndexEntry> {
    let head = parse_frontmatter_head(text, true)?;
    let title = head.header.name?.trim().to_owned();
    if title.is_empty() {
        return None;
    }
    Some(IndexEntry {
        title,
        file: key.to_owned(),
        hook: head.header.description.unwrap_or_default(),
    })
}

/// Merge an index: `base`, plus each of `others` whose file `base` does not index, minus every
/// entry whose memory file is not `present`, plus `derived` entries for files still without one.
/// Lines that are not entries are kept. Returns `None` when the result holds nothing (no base
/// text and no entry), so an index is never created empty.
///
/// `derived(key)` is asked only for present files that no entry names.
pub(crate) fn merge_index(
    base: Option<&str>,
    others: &[IndexEntry],
    present: &KeySet,
    mut derived: impl FnMut(&str) -> Option<IndexEntry>,
) -> Option<String> {
    let text = base.unwrap_or("");
    // One pass over the base drops the entries of missing files (and repeated entries of one
    // file); the other side's entries and the derived ones are appended.
    let mut out = String::with_capacity(text.len());
    let mut seen = KeySet::new();
    for line in text.split_inclusive('\n') {
        let keep = match parse_index_entry(line).and_then(|e| entry_key(&e.file)) {
            Some(key) => present.contains_key(&key) && seen.insert(key, String::new()).is_none(),
            None => true,
        };
        if keep {
            out.push_str(line);
        }
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let append = |out: &mut String, entry: &IndexEntry| {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(eol);
        }
        out.push_str(&format_index_entry(entry));
        out.push_str(eol);
    };
    for entry in others {
        if let Some(key) = entry_key(&entry.file) {
            if present.contains_key(&key) && seen.insert(key, String::new()).is_none() {
                append(&mut out, entry);
            }
        }
    }
    for key in present.keys() {
        if seen.contains_key(key) {
            continue;
        }
        if let Some(entry) = derived(key) {
            append(&mut out, &entry);
        }
    }
    if base.is_none() && out.is_empty() {
        return None;
    }
    Some(out)
}

/// Add the keys of `keys` to `set` (through `dyn`: one copy of the code for every caller).
pub(crate) fn add_keys(set: &mut KeySet, keys: &mut dyn Iterator<Item = &String>) {
    for key in keys {
        set.insert(key.clone(), String::new());
    }
}

/// The memory-file keys the entries of `base` and `others` name.
pub(crate) fn indexed_keys(base: Option<&str>, others: &[IndexEntry]) -> KeySet {
    let mut set = KeySet::new();
    let from_base = index_entries(base.unwrap_or(""));
    for entry in from_base.iter().map(|(_, e)| e).chain(others) {
        if let Some(key) = entry_key(&entry.file) {
            set.insert(key, String::new());
        }
    }
    set
}

/// The index without its lines in which the secret scanner finds something; the first finding,
/// if any line was dropped.
pub(crate) fn drop_secret_lines(text: &str) -> (String, Option<crate::secrets::SecretFinding>) {
    let mut first = None;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match scan_for_secrets(line).into_iter().next() {
            Some(finding) => {
                first.get_or_insert(finding);
            }
            None => out.push_str(line),
        }
    }
    (out, first)
}

/// The entries of an index text.
pub(crate) fn entries_of(text: &str) -> Vec<IndexEntry> {
    index_entries(text).into_iter().map(|(_, e)| e).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn set(keys: &[&str]) -> KeySet {
        keys.iter()
            .map(|k| ((*k).to_owned(), String::new()))
            .collect()
    }

    fn entry(file: &str) -> IndexEntry {
        IndexEntry {
            title: format!("Title of {file}"),
            file: file.to_owned(),
            hook: "h".to_owned(),
        }
    }

    #[test]
    fn union_then_rederived_from_the_files() {
        let base = "# Team\n- [A](a.md) — a\n- [Gone](gone.md) — x\n- [Site](https://x.example)\n";
        let merged = merge_index(
            Some(base),
            &[entry("b.md"), entry("a.md"), entry("missing.md")],
            &set(&["a.md", "b.md", "c.md", "d.md"]),
            |key| (key == "c.md").then(|| entry(key)),
        )
        .unwrap();
        assert_eq!(
            merged,
            "# Team\n- [A](a.md) — a\n- [Site](https://x.example)\n- [Title of b.md](b.md) — h\n- [Title of c.md](c.md) — h\n"
        );
    }

    #[test]
    fn nothing_to_index_makes_no_index() {
        assert_eq!(merge_index(None, &[], &set(&["x.md"]), |_| None), None);
        assert_eq!(merge_index(Some(""), &[], &set(&[]), |_| None).unwrap(), "");
    }

    #[test]
    fn frontmatter_entries_need_a_name() {
        let e = entry_from_frontmatter(
            "n/a.md",
            "---\nname: Deploy\ndescription: Tuesdays\n---\nx\n",
        );
        assert_eq!(e.unwrap().hook, "Tuesdays");
        assert!(entry_from_frontmatter("a.md", "no frontmatter").is_none());
    }
}
