//! `list`: the index entries of both scopes and whether their files exist.

use super::index::root_relative;
use super::names::check_memory_file;
use super::types::{ListedMemory, Scope};
use super::Store;
use crate::error::Result;
use crate::future::join_all;
use crate::host::{Clock, EntryKind, FileSystem, Telemetry};
use crate::index_entry::parse_index_entry;

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Every entry of `MEMORY.md`, then of `team/MEMORY.md`, in index order, each with whether
    /// its file exists as a regular file. Entries whose target is not a plain relative `.md`
    /// path (`../x.md`, `/etc/x.md`) are listed with `exists: false` and never probed. Missing
    /// indexes list nothing.
    pub async fn list(&self) -> Result<Vec<ListedMemory>> {
        let mut listed = Vec::new();
        for scope in [Scope::Private, Scope::Team] {
            let index = self.read_raw_index(scope).await?;
            let dir = self.scope_dir(scope);
            let entries: Vec<_> = index
                .split('\n')
                .filter_map(|line| parse_index_entry(line.strip_suffix('\r').unwrap_or(line)))
                .collect();
            let probes = entries
                .iter()
                .map(|entry| self.is_regular_file(&dir, &entry.file))
                .collect();
            let exists = join_all(probes).await;
            for (entry, exists) in entries.into_iter().zip(exists) {
                listed.push(ListedMemory {
                    file: root_relative(scope, &entry.file),
                    entry,
                    scope,
                    exists,
                });
            }
        }
        Ok(listed)
    }

    async fn is_regular_file(&self, dir: &str, rel: &str) -> bool {
        if check_memory_file(rel).is_err() {
            return false;
        }
        matches!(
            self.fs.stat(&format!("{dir}{rel}")).await,
            Ok(st) if st.kind == EntryKind::File
        )
    }
}
