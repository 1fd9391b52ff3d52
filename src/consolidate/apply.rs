//! Applying a [`Changeset`] with an undo journal, and undoing it.
//!
//! `apply_changeset` takes the directory lock, checks that every file still has the text the
//! changeset expects (else `ALREADY_EXISTS`, nothing written), writes the journal
//! `.memdir-undo.json` (each touched file with its text before and after; `null` for "absent"),
//! then the changes. A failure midway puts back what was written and removes the journal.
//! `undo_changeset` checks that every file still has its "after" text (else `ALREADY_EXISTS`,
//! nothing written), restores each "before" byte for byte, and removes the journal. One level of
//! undo: a new apply replaces the journal. Directories created for new files stay (empty) after
//! an undo, since hosts cannot remove directories.

use super::changeset::{check_changeset, check_changeset_file, Changeset};
use super::Consolidator;
use crate::error::{Code, Error, Result};
use crate::host::{Clock, FieldValue, FileSystem, Llm, Telemetry};
use crate::json::{parse, Json};
use crate::store::IndexWarning;
use crate::store::Scope;
use crate::types::ENTRYPOINT_NAME;
use serde::Serialize;

/// The undo journal's name inside the memory directory.
pub const UNDO_JOURNAL_NAME: &str = ".memdir-undo.json";

/// One file a changeset touches.
#[derive(Clone, Debug, PartialEq, Eq)]
struct JournalEntry {
    file: String,
    before: Option<String>,
    after: Option<String>,
}

fn optional_json(text: &Option<String>) -> Json {
    match text {
        Some(t) => Json::String(t.clone()),
        None => Json::Null,
    }
}

fn journal_text(entries: &[JournalEntry]) -> String {
    let items = entries
        .iter()
        .map(|e| {
            Json::Object(vec![
                ("file".to_owned(), Json::String(e.file.clone())),
                ("before".to_owned(), optional_json(&e.before)),
                ("after".to_owned(), optional_json(&e.after)),
            ])
        })
        .collect();
    Json::Object(vec![
        ("version".to_owned(), Json::Number(1.0)),
        ("entries".to_owned(), Json::Array(items)),
    ])
    .to_string()
}

fn bad_journal() -> Error {
    Error::new(Code::InvalidInput, "the undo journal is not readable")
}

fn parse_journal(text: &str) -> Result<Vec<JournalEntry>> {
    let value = parse(text).map_err(|_| bad_journal())?;
    let items = value
        .get("entries")
        .and_then(Json::as_array)
        .ok_or_else(bad_journal)?;
    let text_of = |item: &Json, key: &str| -> Result<Option<String>> {
        match item.get(key) {
            Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.clone())),
            _ => Err(bad_journal()),
        }
    };
    let mut entries = Vec::with_capacity(items.len());
    for item in items {
        let file = item
            .get("file")
            .and_then(Json::as_str)
            .ok_or_else(bad_journal)?
            .to_owned();
        if file != ENTRYPOINT_NAME {
            super::changeset::check_changeset_file(&file)?;
        }
        entries.push(JournalEntry {
            before: text_of(item, "before")?,
            after: text_of(item, "after")?,
            file,
        });
    }
    Ok(entries)
}

/// What an apply wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    /// Files created.
    pub created: usize,
    /// Files changed.
    pub updated: usize,
    /// Files deleted.
    pub deleted: usize,
    /// The index was replaced.
    pub index_changed: bool,
    /// Set when the new index is over its caps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_warning: Option<IndexWarning>,
}

fn conflict(file: &str) -> Error {
    Error::new(
        Code::AlreadyExists,
        format!("{file:?} changed since the changeset was made; nothing was written"),
    )
}

impl<F: FileSystem, C: Clock, T: Telemetry, L: Llm> Consolidator<'_, F, C, T, L> {
    fn undo_journal_path(&self) -> String {
        format!("{}{UNDO_JOURNAL_NAME}", self.store.dir())
    }

    fn changeset_entry_path(&self, file: &str) -> String {
        format!("{}{file}", self.store.dir())
    }

    /// Write a changeset (see the module docs). This is the host's approval, so it runs in
    /// `confirm` mode as in `auto`; `off` and `read-only` refuse it with `WRITE_FORBIDDEN`.
    pub async fn apply_changeset(&self, changeset: &Changeset) -> Result<ApplyReport> {
        self.store.check_writable()?;
        check_changeset(changeset)?;
        let lock = self.store.lock_dir().await?;
        let result = self.apply_changeset_locked(changeset).await;
        self.store.unlock_dir(lock).await;
        if let Ok(report) = &result {
            let n = |v: usize| FieldValue::Num(v as f64);
            self.store.telemetry().emit(
                "memdir_changeset_applied",
                &[
                    ("created", n(report.created)),
                    ("updated", n(report.updated)),
                    ("deleted", n(report.deleted)),
                    ("index_changed", FieldValue::Bool(report.index_changed)),
                ],
            );
        }
        result
    }

    async fn apply_changeset_locked(&self, cs: &Changeset) -> Result<ApplyReport> {
        let mut entries = Vec::new();
        for c in &cs.create {
            entries.push(JournalEntry {
                file: c.file.clone(),
                before: None,
                after: Some(c.content.clone()),
            });
        }
        for u in &cs.update {
            entries.push(JournalEntry {
                file: u.file.clone(),
                before: Some(u.before.clone()),
                after: Some(u.after.clone()),
            });
        }
        for d in &cs.delete {
            entries.push(JournalEntry {
                file: d.file.clone(),
                before: Some(d.before.clone()),
                after: None,
            });
        }
        if let Some(index) = &cs.index {
            entries.push(JournalEntry {
                file: ENTRYPOINT_NAME.to_owned(),
                before: index.before.clone(),
                after: Some(index.after.clone()),
            });
        }
        for entry in &entries {
            let path = self.changeset_entry_path(&entry.file);
            // No entry — a delete included — may reach outside through a symlink.
            self.store
                .check_containment(Scope::Private, &entry.file, &path)
                .await?;
            if self.store.read_optional(&path).await? != entry.before {
                return Err(conflict(&entry.file));
            }
        }
        self.store
            .write_atomic(&self.undo_journal_path(), &journal_text(&entries))
            .await?;
        for (done, entry) in entries.iter().enumerate() {
            if let Err(e) = self
                .put_changeset_file(&entry.file, entry.after.as_deref())
                .await
            {
                for undone in entries.iter().take(done + 1).rev() {
                    let _ = self
                        .put_changeset_file(&undone.file, undone.before.as_deref())
                        .await;
                }
                let _ = self.store.fs().remove(&self.undo_journal_path()).await;
                return Err(e);
            }
        }
        Ok(ApplyReport {
            created: cs.create.len(),
            updated: cs.update.len(),
            deleted: cs.delete.len(),
            index_changed: cs.index.is_some(),
            index_warning: cs
                .index
                .as_ref()
                .and_then(|i| self.store.measure_index(Scope::Private, &i.after)),
        })
    }

    /// Make `file` hold `text`, or remove it for `None`.
    async fn put_changeset_file(&self, file: &str, text: Option<&str>) -> Result<()> {
        let path = self.changeset_entry_path(file);
        match text {
            Some(text) => {
                self.store.ensure_parent(&path).await?;
                self.store.write_atomic(&path, text).await
            }
            None => match self.store.fs().remove(&path).await {
                Ok(()) => Ok(()),
                Err(e) if e.is_not_found() => Ok(()),
                Err(e) => Err(Error::fs("remove", &path, e)),
            },
        }
    }

    /// Undo the last applied changeset (see the module docs): `NOT_FOUND` when there is no
    /// journal, `ALREADY_EXISTS` when a file changed since. Refused in `off` and `read-only`.
    /// Returns how many files were restored.
    pub async fn undo_changeset(&self) -> Result<usize> {
        self.store.check_writable()?;
        let lock = self.store.lock_dir().await?;
        let result = self.undo_changeset_locked().await;
        self.store.unlock_dir(lock).await;
        if let Ok(restored) = result {
            self.store.telemetry().emit(
                "memdir_changeset_undone",
                &[("restored", FieldValue::Num(restored as f64))],
            );
        }
        result
    }

    async fn undo_changeset_locked(&self) -> Result<usize> {
        let journal_path = self.undo_journal_path();
        let text = self
            .store
            .read_optional(&journal_path)
            .await?
            .ok_or_else(|| Error::new(Code::NotFound, "there is no changeset to undo"))?;
        let entries = parse_journal(&text)?;
        for entry in &entries {
            // The journal comes from disk: its file names get the same checks as a changeset's.
            if entry.file != ENTRYPOINT_NAME {
                check_changeset_file(&entry.file)?;
            }
            let path = self.changeset_entry_path(&entry.file);
            self.store
                .check_containment(Scope::Private, &entry.file, &path)
                .await?;
            if self.store.read_optional(&path).await? != entry.after {
                return Err(conflict(&entry.file));
            }
        }
        for (done, entry) in entries.iter().rev().enumerate() {
            if let Err(e) = self
                .put_changeset_file(&entry.file, entry.before.as_deref())
                .await
            {
                // Put back what was already restored, so the journal still describes the
                // directory and the undo can be tried again.
                for redone in entries.iter().rev().take(done + 1) {
                    let _ = self
                        .put_changeset_file(&redone.file, redone.after.as_deref())
                        .await;
                }
                return Err(e);
            }
        }
        self.store
            .fs()
            .remove(&journal_path)
            .await
            .map_err(|e| Error::fs("remove", &journal_path, e))?;
        Ok(entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_round_trips_exact_text() {
        let entries = vec![
            JournalEntry {
                file: "a.md".into(),
                before: None,
                after: Some("x\r\n\"q\"\t\u{1F600}\u{0}".into()),
            },
            JournalEntry {
                file: ENTRYPOINT_NAME.into(),
                before: Some(String::new()),
                after: None,
            },
        ];
        assert_eq!(parse_journal(&journal_text(&entries)).unwrap(), entries);
        assert!(parse_journal(
            "{\"entries\":[{\"file\":\"../x.md\",\"before\":null,\"after\":null}]}"
        )
        .is_err());
        assert!(parse_journal("nope").is_err());
    }
}
