//! Crash consistency between a memory file and its index entry. Before a write touches either,
//! a one-line journal names the memory (`<scope> <file>`); it is removed when both are done. A
//! writer killed in between leaves the journal behind, and the next writer — under the same
//! directory lock — repairs that one entry: the index then points at the file if the file is on
//! disk with a valid header, and at nothing otherwise.

use super::types::Scope;
use super::Store;
use crate::error::Result;
use crate::frontmatter::parse_frontmatter;
use crate::host::{Clock, FileSystem, Telemetry};
use crate::index_entry::{remove_index_entry, upsert_index_entry, IndexEntry};

/// The journal's file name inside the memory directory.
pub const JOURNAL_FILE_NAME: &str = ".memdir-journal";

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
        let _ = self.fs.remove(&self.journal_path()).await;
    }

    /// Finish what a killed writer left half done (see the module docs). Must run under the
    /// lock; never fails the caller's write.
    pub(crate) async fn journal_recover(&self) {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

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
