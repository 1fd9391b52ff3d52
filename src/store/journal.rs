//! Crash consistency between a memory file and its index entry. Before a write touches either,
//! a one-line journal names the memory (`<scope> <file>`); it is removed when both are done. A
//! writer killed in between leaves the journal behind, and the next writer — under the same
//! directory lock — repairs that one entry: the index then points at the file if the file is on
//! disk with a valid header, and at nothing otherwise.
//!
//! Recovery also sweeps the temp files of atomic writes a killed writer left behind
//! (`<name>.tmp-<id>`, see [`super::write`]): under the lock, at most once per `lock_stale_ms`
//! per store, a walk of the directory (no symlinks followed, at most [`SWEEP_MAX_DEPTH`] levels
//! and [`SWEEP_MAX_ENTRIES`] entries) removes every file whose name ends in `.tmp-` and an id
//! (`[0-9a-z-]`, which covers the node filesystem's own `.tmp-<pid>-<hex>` too) and whose mtime
//! is older than `lock_stale_ms`. A younger one may belong to a live writer without the lock
//! (another process's `writeFile`), so it stays.

use super::types::Scope;
use super::write::TEMP_MARK;
use super::Store;
use crate::error::Result;
use crate::frontmatter::parse_frontmatter;
use crate::host::{Clock, EntryKind, FieldValue, FileSystem, Telemetry};
use crate::index_entry::{remove_index_entry, upsert_index_entry, IndexEntry};

/// The journal's file name inside the memory directory.
pub const JOURNAL_FILE_NAME: &str = ".memdir-journal";
/// Directory levels below the memory directory the temp-file sweep looks into.
pub const SWEEP_MAX_DEPTH: usize = 8;
/// Directory entries the temp-file sweep looks at, at most.
pub const SWEEP_MAX_ENTRIES: usize = 20_000;

/// True for the name of a temp file of an atomic write: `<something>.tmp-<id>` with the id made
/// of `[0-9a-z-]` only (so never a `.md` file).
pub(crate) fn is_temp_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mark = TEMP_MARK.as_bytes();
    match bytes.windows(mark.len()).rposition(|w| w == mark) {
        Some(i) if i > 0 => bytes.get(i + mark.len()..).is_some_and(|id| {
            !id.is_empty()
                && id
                    .iter()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase() || *b == b'-')
        }),
        _ => false,
    }
}

fn encode(scope: Scope, rel: &str) -> String {
    let tag = match scope {
        Scope::Private => "private",
        Scope::Team => "team",
    };
    format!("{tag} {rel}\n")
}

fn decode(text: &str) -> Option<(Scope, &str)> {
    let (tag, rel) = text.trim_end_matches('\n').split_once(' ')?;
    let scope = match tag {
        "private" => Scope::Private,
        "team" => Scope::Team,
        _ => return None,
    };
    super::names::check_memory_file(rel).ok()?;
    Some((scope, rel))
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    fn journal_path(&self) -> String {
        format!("{}{JOURNAL_FILE_NAME}", self.dir)
    }

    /// Record that the memory `rel` of `scope` is about to change. Must run under the lock.
    pub(crate) async fn journal_begin(&self, scope: Scope, rel: &str) -> Result<()> {
        self.write_atomic(&self.journal_path(), &encode(scope, rel))
            .await
    }

    /// The change recorded by [`Self::journal_begin`] is complete.
    pub(crate) async fn journal_end(&self) {
        let _ = self.bounded(self.fs.remove(&self.journal_path())).await;
    }

    /// Finish what a killed writer left half done (see the module docs). Must run under the
    /// lock; never fails the caller's write.
    pub(crate) async fn journal_recover(&self) {
        self.sweep_temp_files().await;
        let Ok(Some(text)) = self.read_optional(&self.journal_path()).await else {
            return;
        };
        if let Some((scope, rel)) = decode(&text) {
            let path = format!("{}{rel}", self.scope_dir(scope));
            let header = match self.read_optional(&path).await {
                Ok(Some(file)) => Some(parse_frontmatter(&file).header),
                Ok(None) => None,
                Err(_) => return,
            };
            let Ok(old) = self.read_raw_index(scope).await else {
                return;
            };
            let new = match header {
                Some(h) if h.name.is_some() && h.memory_type.is_some() => upsert_index_entry(
                    &old,
                    &IndexEntry {
                        title: h.name.unwrap_or_default(),
                        file: rel.to_owned(),
                        hook: h.description.unwrap_or_default(),
                    },
                ),
                _ => remove_index_entry(&old, rel),
            };
            if new != old
                && self
                    .write_atomic(&self.index_path(scope), &new)
                    .await
                    .is_err()
            {
                return;
            }
        }
        self.journal_end().await;
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Remove stale temp files (see the module docs). Must run under the lock; never fails.
    pub(crate) async fn sweep_temp_files(&self) {
        let now = self.clock.now_ms();
        let stale = f64::from(self.config.lock_stale_ms);
        if let Some(last) = self.lock_state.last_sweep_ms.get() {
            if now >= last && now - last < stale {
                return;
            }
        }
        self.lock_state.last_sweep_ms.set(Some(now));
        let root = crate::paths::PathStyle::of_dir(&self.dir).trim_trailing_sep(&self.dir);
        let mut dirs = vec![(root, 0usize)];
        let (mut seen, mut removed) = (0usize, 0u32);
        while let Some((dir, depth)) = dirs.pop() {
            let Ok(entries) = self.bounded(self.fs.read_dir(&dir)).await else {
                continue;
            };
            for entry in entries {
                seen += 1;
                if seen > SWEEP_MAX_ENTRIES {
                    dirs.clear();
                    break;
                }
                let path = format!("{dir}/{}", entry.name);
                match entry.kind {
                    EntryKind::Dir if depth < SWEEP_MAX_DEPTH => dirs.push((path, depth + 1)),
                    EntryKind::File if is_temp_name(&entry.name) => {
                        let Ok(st) = self.bounded(self.fs.stat(&path)).await else {
                            continue;
                        };
                        let old = st.mtime_ms.is_finite() && now - st.mtime_ms > stale;
                        if st.kind == EntryKind::File
                            && old
                            && self.bounded(self.fs.remove(&path)).await.is_ok()
                        {
                            removed += 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        if removed > 0 {
            self.telemetry.emit(
                "memdir_temp_swept",
                &[("removed", FieldValue::Num(f64::from(removed)))],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_is_a_listed_library_file() {
        let file = crate::library_files::library_file(JOURNAL_FILE_NAME);
        assert_eq!(
            file.map(|f| f.kind),
            Some(crate::library_files::LibraryFileKind::Journal)
        );
    }

    #[test]
    fn temp_names() {
        for yes in [
            "MEMORY.md.tmp-lx2a1b3",
            "a.md.tmp-123-ff09",
            "a.md.tmp-x.tmp-9-ab",
        ] {
            assert!(is_temp_name(yes), "{yes}");
        }
        for no in [
            "a.md",
            "a.tmp-1.md",
            ".tmp-1",
            "a.md.tmp-",
            "a.md.tmp-ABC",
            "notes.txt",
        ] {
            assert!(!is_temp_name(no), "{no}");
        }
    }

    #[test]
    fn journal_lines_round_trip_and_reject_junk() {
        assert_eq!(
            decode(&encode(Scope::Team, "a/b.md")),
            Some((Scope::Team, "a/b.md"))
        );
        assert_eq!(decode("private ../x.md\n"), None);
        assert_eq!(decode("nobody x.md"), None);
        assert_eq!(decode(""), None);
    }
}
