//! `list`: the index entries of both scopes and whether their files exist.
//!
//! The existence probes run [`LIST_CHUNK`] at a time. A join is polled whole each time one of
//! its host calls settles (that is how a wasm future over JS Promises runs), so one join over
//! every entry costs n polls of n futures — quadratic; chunks keep each join small, and the
//! whole list linear in the number of entries.

use super::contain::{ReadRoot, ReadTarget};
use super::index::root_relative;
use super::names::check_memory_file;
use super::types::{ListedMemory, Scope};
use super::Store;
use crate::error::Result;
use crate::future::join_all;
use crate::host::{Clock, EntryKind, FileSystem, Telemetry};
use crate::index_entry::parse_index_entry;

/// Existence probes run concurrently per batch.
pub const LIST_CHUNK: usize = 64;

/// What one probe found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// A regular file inside the memory directory.
    File,
    /// Missing, not a regular file, or not a plain relative `.md` path.
    Absent,
    /// Leads outside the memory directory through a symlink (listed as not existing).
    Outside,
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Every entry of `MEMORY.md`, then of `team/MEMORY.md`, in index order, each with whether
    /// its file exists as a regular file inside the memory directory. Entries whose target is
    /// not a plain relative `.md` path (`../x.md`, `/etc/x.md`) are listed with
    /// `exists: false` and never probed; so are files that lead outside the directory through
    /// a symlink. Missing indexes list nothing; an index that leads outside is
    /// `PATH_SYMLINK_ESCAPE`. Linear in the number of entries (probes run [`LIST_CHUNK`] at a
    /// time).
    pub async fn list(&self) -> Result<Vec<ListedMemory>> {
        let root = self.read_root().await?;
        let mut listed = Vec::new();
        let mut outside = 0;
        for scope in [Scope::Private, Scope::Team] {
            let index = self.read_index_in(&root, scope).await?.unwrap_or_default();
            let dir = self.scope_dir(scope);
            let entries: Vec<_> = index
                .split('\n')
                .filter_map(|line| parse_index_entry(line.strip_suffix('\r').unwrap_or(line)))
                .collect();
            listed.reserve(entries.len());
            let mut entries = entries.into_iter();
            loop {
                let chunk: Vec<_> = entries.by_ref().take(LIST_CHUNK).collect();
                if chunk.is_empty() {
                    break;
                }
                let probes = chunk
                    .iter()
                    .map(|entry| self.probe(&root, &dir, &entry.file))
                    .collect();
                let found = join_all(probes).await;
                for (entry, probe) in chunk.into_iter().zip(found) {
                    outside += usize::from(probe == Probe::Outside);
                    listed.push(ListedMemory {
                        file: root_relative(scope, &entry.file),
                        entry,
                        scope,
                        exists: probe == Probe::File,
                    });
                }
            }
        }
        self.note_outside("list", outside);
        Ok(listed)
    }

    async fn probe(&self, root: &ReadRoot, dir: &str, rel: &str) -> Probe {
        if check_memory_file(rel).is_err() {
            return Probe::Absent;
        }
        let real = match self.resolve_read(root, &format!("{dir}{rel}")).await {
            Ok(ReadTarget::Inside(real)) => real,
            Ok(ReadTarget::Outside) => return Probe::Outside,
            Ok(ReadTarget::Missing) | Err(_) => return Probe::Absent,
        };
        match self.fs.stat(&real).await {
            Ok(st) if st.kind == EntryKind::File => Probe::File,
            _ => Probe::Absent,
        }
    }
}
