//! `update` and `delete`: change or remove a memory with its index entry, under the lock.

use super::index::split_scope;
use super::names::{check_memory_type, check_single_line};
use super::save::{check_scoped_file, PlannedWrite};
use super::types::{DeletedMemory, MemoryChanges, Proposal, SaveOutcome};
use super::Store;
use crate::error::{Code, Error, Result};
use crate::frontmatter::{format_memory_file_modified, parse_frontmatter, MemoryFields};
use crate::host::{Clock, FileSystem, Telemetry};
use crate::index_entry::{parse_index_entry, remove_index_entry};

fn validate_changes(changes: &MemoryChanges) -> Result<()> {
    if let Some(name) = &changes.name {
        check_single_line("name", name)?;
    }
    if let Some(description) = &changes.description {
        check_single_line("description", description)?;
    }
    if let Some(t) = &changes.memory_type {
        check_memory_type(t)?;
    }
    Ok(())
}

/// Check a path relative to the memory directory (`x.md`, `team/x.md`).
fn validate_target(file: &str) -> Result<()> {
    let (scope, rel) = split_scope(file);
    check_scoped_file(scope, rel)
}

fn not_found(file: &str) -> Error {
    Error::new(Code::NotFound, format!("no memory {file:?}"))
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Change a memory's fields and/or body and its index entry (`file` relative to the memory
    /// directory, as [`Store::scan`] names it: `team/x.md` is team memory). The frontmatter is
    /// rewritten with `name`, `description` and `type` (other keys are not kept). Fails with
    /// `NOT_FOUND` when the file does not exist, and `INVALID_MEMORY` when the result would lack
    /// a name, description or type.
    pub async fn update(&self, file: &str, changes: MemoryChanges) -> Result<SaveOutcome> {
        self.check_writable()?;
        self.check_dir()?;
        validate_target(file)?;
        validate_changes(&changes)?;
        if self.confirms_writes() {
            return Ok(SaveOutcome::Proposed(Proposal::Update {
                file: file.to_owned(),
                changes,
            }));
        }
        self.update_now(file, &changes).await
    }

    /// Remove a memory file and its index entry. `NOT_FOUND` when neither exists.
    pub async fn delete(&self, file: &str) -> Result<SaveOutcome> {
        self.check_writable()?;
        self.check_dir()?;
        validate_target(file)?;
        if self.confirms_writes() {
            return Ok(SaveOutcome::Proposed(Proposal::Delete {
                file: file.to_owned(),
            }));
        }
        self.delete_now(file).await
    }

    pub(crate) async fn update_now(
        &self,
        file: &str,
        changes: &MemoryChanges,
    ) -> Result<SaveOutcome> {
        validate_target(file)?;
        validate_changes(changes)?;
        let intent = (!changes.skip_index).then(|| split_scope(file));
        let lock = self.lock_dir_for(intent).await?;
        let result = self.update_locked(file, changes).await;
        self.unlock_dir(lock).await;
        result
    }

    async fn update_locked(&self, file: &str, changes: &MemoryChanges) -> Result<SaveOutcome> {
        let (scope, rel) = split_scope(file);
        let path = format!("{}{rel}", self.scope_dir(scope));
        self.check_containment(scope, rel, &path).await?;
        let current = self
            .read_optional(&path)
            .await?
            .ok_or_else(|| not_found(file))?;
        // Whatever the changes leave as it was is rewritten from the decoded text: refuse a file
        // whose bytes the decoder replaced, unless every part is being replaced.
        let replaces_all = changes.name.is_some()
            && changes.description.is_some()
            && changes.memory_type.is_some()
            && changes.body.is_some();
        if !replaces_all {
            self.check_bytes_intact(&path, &current).await?;
        }
        let parsed = parse_frontmatter(&current);
        let memory_type = match &changes.memory_type {
            Some(t) => Some(check_memory_type(t)?),
            None => parsed.header.memory_type,
        };
        let fields = MemoryFields {
            name: changes.name.clone().or(parsed.header.name),
            description: changes.description.clone().or(parsed.header.description),
            memory_type,
        };
        if fields.name.is_none() || fields.description.is_none() || fields.memory_type.is_none() {
            return Err(Error::new(
                Code::InvalidMemory,
                format!("{file:?} would lack a name, description or type; pass them"),
            ));
        }
        let body = changes.body.as_deref().unwrap_or(&parsed.body);
        let plan = PlannedWrite {
            scope,
            rel: rel.to_owned(),
            path,
            text: format_memory_file_modified(&fields, Some(self.clock.now_ms()), body),
            index: None,
            old_index: None,
            previous: Some(current.clone()),
        };
        self.commit(plan, &fields, changes.skip_index).await
    }

    pub(crate) async fn delete_now(&self, file: &str) -> Result<SaveOutcome> {
        validate_target(file)?;
        let lock = self.lock_dir_for(Some(split_scope(file))).await?;
        let result = self.delete_locked(file).await;
        self.unlock_dir(lock).await;
        result
    }

    async fn delete_locked(&self, file: &str) -> Result<SaveOutcome> {
        let (scope, rel) = split_scope(file);
        let path = format!("{}{rel}", self.scope_dir(scope));
        // A symlinked directory must not let a delete reach a file outside.
        self.check_containment(scope, rel, &path).await?;
        let previous = self.read_optional(&path).await?;
        let index = self.read_index_for_write(scope).await?;
        let has_entry = index
            .split('\n')
            .filter_map(|line| parse_index_entry(line.strip_suffix('\r').unwrap_or(line)))
            .any(|entry| entry.file == rel);
        if previous.is_none() && !has_entry {
            return Err(not_found(file));
        }
        self.journal_begin(scope, rel).await?;
        if previous.is_some() {
            if let Err(e) = self.fs.remove(&path).await {
                self.journal_end().await;
                return Err(Error::fs("remove", &path, e));
            }
        }
        if has_entry {
            let new_index = remove_index_entry(&index, rel);
            if let Err(e) = self.write_atomic(&self.index_path(scope), &new_index).await {
                let restored = match &previous {
                    Some(text) => self.write_atomic(&path, text).await.is_ok(),
                    None => true,
                };
                // Not restored: the journal stays and the next writer drops the entry.
                if restored {
                    self.journal_end().await;
                } else {
                    self.journal_keep(scope, rel).await;
                }
                return Err(e);
            }
        }
        self.journal_end().await;
        Ok(SaveOutcome::Deleted(DeletedMemory {
            file: file.to_owned(),
            removed_file: previous.is_some(),
            removed_entry: has_entry,
        }))
    }
}
