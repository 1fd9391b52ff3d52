//! The local side of a push: reading the team directory into keys, and cutting the upload into
//! bodies under the size cap.

use super::{names_excluded_dir, MAX_ENTRY_BYTES, MAX_PUT_BODY_BYTES};
use crate::error::{Error, Result};
use crate::host::{EntryKind, FileSystem};
use crate::json::Json;
use crate::path_key::sanitize_path_key;
use crate::paths::join;
use crate::store::names::check_memory_file;
use crate::str_map::StrMap;
use crate::types::ENTRYPOINT_NAME;

/// Whether a key (a `/`-separated path relative to the team directory) names something a sync
/// moves: the top-level `MEMORY.md`, or a memory file — a `.md` file whose key passes the team
/// key checks ([`sanitize_path_key`], [`check_memory_file`]) and has no hidden segment. Temp files
/// of interrupted writes (`x.md.tmp-…`), `.DS_Store`, `notes.txt`, anything under `.conflicts/`
/// are not memory files.
///
/// ```
/// use memdir::sync::is_sync_key;
/// assert!(is_sync_key("MEMORY.md") && is_sync_key("notes/api.md"));
/// assert!(!is_sync_key("real.md.tmp-1a2b") && !is_sync_key(".DS_Store") && !is_sync_key("notes.txt"));
/// assert!(!is_sync_key(".conflicts/a.md") && !is_sync_key("sub/MEMORY.md") && !is_sync_key("a\\b.md"));
/// ```
pub fn is_sync_key(key: &str) -> bool {
    if key == ENTRYPOINT_NAME {
        return true;
    }
    !key.split('/').any(|segment| segment.starts_with('.'))
        && sanitize_path_key(key).is_ok()
        && check_memory_file(key).is_ok()
}

/// The keys of the memory files (and `MEMORY.md`) under `team_dir`, with their paths, in no
/// particular order. Hidden entries are not entered, symlinks are not followed, nor are the
/// top-level folders named in `excluded`; a directory that vanished or cannot be read (`ENOENT`,
/// `EACCES`, `EPERM`) is passed over.
pub(crate) async fn list_team_keys<F: FileSystem>(
    fs: &F,
    team_dir: &str,
    excluded: &[String],
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut pending: Vec<(String, String)> = vec![(team_dir.to_owned(), String::new())];
    while let Some((dir, prefix)) = pending.pop() {
        let entries = match fs.read_dir(&dir).await {
            Ok(entries) => entries,
            Err(e) if e.has_code("ENOENT") || e.has_code("EACCES") || e.has_code("EPERM") => {
                continue
            }
            Err(e) => return Err(Error::fs("read directory", &dir, e)),
        };
        for entry in entries {
            if entry.name.starts_with('.') {
                continue;
            }
            let path = join(&dir, &entry.name);
            let key = if prefix.is_empty() {
                entry.name.clone()
            } else {
                format!("{prefix}/{}", entry.name)
            };
            match entry.kind {
                EntryKind::Dir
                    if prefix.is_empty() && names_excluded_dir(excluded, &entry.name) => {}
                EntryKind::Dir => pending.push((path, key)),
                EntryKind::File if is_sync_key(&key) => out.push((key, path)),
                EntryKind::File | EntryKind::Symlink => {}
            }
        }
    }
    Ok(out)
}

/// Every memory file under `team_dir` (see [`list_team_keys`]) with its text, keyed by its key.
/// Files over [`MAX_ENTRY_BYTES`] are left out.
pub(crate) async fn read_team_files<F: FileSystem>(
    fs: &F,
    team_dir: &str,
    excluded: &[String],
) -> Result<StrMap> {
    // Collected, then sorted once into a map (listings come in any order).
    let mut files: Vec<(String, String)> = Vec::new();
    for (key, path) in list_team_keys(fs, team_dir, excluded).await? {
        match fs.read_file(&path).await {
            Ok(text) if text.len() <= MAX_ENTRY_BYTES => files.push((key, text)),
            Ok(_) => {}
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(Error::fs("read", &path, e)),
        }
    }
    Ok(files.into_iter().collect())
}

/// Bytes of `text` as a JSON string literal.
fn json_len(text: &str) -> usize {
    Json::String(text.to_owned()).to_string().len()
}

/// Split `(key, content)` pairs (taken in key order) into batches whose estimated `PUT` body —
/// `{"entries":{}}` plus, per entry, its JSON key, its JSON value and 2 bytes for `:` and `,` —
/// stays within [`MAX_PUT_BODY_BYTES`]. An entry too big on its own travels alone.
///
/// ```
/// use memdir::sync::batch_by_bytes;
/// let big = "x".repeat(120_000);
/// let batches = batch_by_bytes(vec![("a", big.as_str()), ("b", big.as_str()), ("c", "small")]);
/// assert_eq!(batches, vec![vec!["a"], vec!["b", "c"]]);
/// ```
pub fn batch_by_bytes<'a>(mut entries: Vec<(&'a str, &'a str)>) -> Vec<Vec<&'a str>> {
    crate::sort::sort_by(&mut entries, |a, b| a.0.cmp(b.0));
    let empty_body = r#"{"entries":{}}"#.len();
    let mut batches: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut size = empty_body;
    for (key, content) in entries {
        let entry_size = json_len(key) + json_len(content) + 2;
        if !current.is_empty() && size + entry_size > MAX_PUT_BODY_BYTES {
            batches.push(std::mem::take(&mut current));
            size = empty_body;
        }
        current.push(key);
        size += entry_size;
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}
