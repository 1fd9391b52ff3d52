//! `save` and `apply_proposal`: a memory file plus its index entry, under the directory lock.

use super::deadline::fs_error;
use super::index::not_utf8;
use super::index::root_relative;
use super::names::{
    check_entry_round_trip, check_memory_file, check_memory_type, check_single_line,
    derived_file_name,
};
use super::types::{Proposal, SaveInput, SaveOutcome, SavedMemory, Scope};
use super::Store;
use super::TEAM_DIR;
use crate::error::{Code, Error, Result};
use crate::frontmatter::{format_memory_file_modified, MemoryFields};
use crate::future::join;
use crate::host::{Clock, EntryKind, FileSystem, Telemetry};
use crate::index_entry::{format_index_entry, upsert_index_entry_telling, IndexEntry};
use crate::paths::PathStyle;
use crate::types::MemoryType;
use crate::types::MAX_HOST_FILE_LEN;

/// Check a save request; the parsed type on success.
fn validate_save(input: &SaveInput) -> Result<MemoryType> {
    let memory_type = check_memory_type(&input.memory_type)?;
    check_single_line("name", &input.name)?;
    check_single_line("description", &input.description)?;
    if let Some(file) = &input.file {
        check_scoped_file(input.scope, file)?;
    }
    Ok(memory_type)
}

/// [`check_memory_file`] (one name policy for both scopes), plus: a private file may not sit
/// in `team/` (team memory is written with [`Scope::Team`] only; compared without ASCII case,
/// as `Team/` is `team/` on a case-insensitive disk).
pub(crate) fn check_scoped_file(scope: Scope, file: &str) -> Result<()> {
    check_memory_file(file)?;
    let in_team = file
        .get(..TEAM_DIR.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(TEAM_DIR));
    if scope == Scope::Private && in_team {
        return Err(Error::new(
            Code::InvalidMemory,
            format!("{file:?} is in team memory; save it with scope team"),
        ));
    }
    Ok(())
}

/// The file a save writes, relative to its scope's directory: the given `file`, or
/// `<type>_<slug>.md`.
fn save_target(input: &SaveInput) -> Result<String> {
    Ok(match &input.file {
        Some(file) => file.clone(),
        None => derived_file_name(check_memory_type(&input.memory_type)?, &input.name, 1),
    })
}

/// `ALREADY_EXISTS` for a save whose file is there and `replace` was not asked for: saving a
/// name twice is a mistake to report, not a second memory (`name-2.md`) to make.
fn already_exists(input: &SaveInput, rel: &str) -> Error {
    let how = match input.file {
        Some(_) => "pass replace to overwrite it",
        None => "pass replace to overwrite it, update it, or give another file",
    };
    let scope = match input.scope {
        Scope::Team => "team memory",
        Scope::Private => "memory",
    };
    Error::new(
        Code::AlreadyExists,
        format!("{rel:?} is already in {scope}; {how}"),
    )
}

/// What a memory write puts on disk, computed before anything is written.
pub(crate) struct PlannedWrite {
    pub scope: Scope,
    pub rel: String,
    pub path: String,
    pub text: String,
    /// The new index text, unless the index is skipped.
    pub index: Option<String>,
    /// The index as read under the lock (or how that read failed), when it was read before
    /// [`Store::commit`]; `None`: commit reads it.
    pub old_index: Option<Result<String>>,
    /// The file's previous text (for rollback), `None` when it is new. The caller has checked
    /// the path's containment under the lock (and read this) before [`Store::commit`].
    pub previous: Option<String>,
}

/// How an index append failed: the index is as it was read, or it may end in part of the line.
enum IndexAppendError {
    Restored(Error),
    Cut(Error),
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Save a memory: write `<type>_<slug>.md` (or `input.file`) with its frontmatter and upsert
    /// its `MEMORY.md` entry (`- [name](file) — description`), atomically and under the
    /// directory lock. Refused in `off`/`read-only` mode (`WRITE_FORBIDDEN`); in `confirm` mode
    /// nothing is written and the outcome is a [`Proposal`].
    ///
    /// Saving over an existing file — the derived `<type>_<slug>.md` or a given `file` — fails
    /// with `ALREADY_EXISTS` (nothing written) unless `replace` is set, which overwrites that
    /// same memory and its index entry in place (`created: false`). A host that saves the same
    /// memory on every start passes `replace: true`. When the new index would be over its caps
    /// (counting what the model loads) and longer than before, the save is refused with
    /// `INDEX_OVER_CAP` and nothing is written; with [`super::IndexOverCap::Warn`] it is written
    /// whole and the outcome carries `index_warning`.
    ///
    /// ```
    /// use memdir::store::{SaveInput, SaveOutcome, Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, Code, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let store = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// let input = SaveInput { name: "Role".into(), description: "Go dev".into(), memory_type: "user".into(), ..SaveInput::default() };
    /// block_on(store.save(input.clone())).unwrap();
    /// assert_eq!(block_on(store.save(input.clone())).unwrap_err().code, Code::AlreadyExists);
    /// let again = block_on(store.save(SaveInput { replace: true, ..input })).unwrap();
    /// assert!(matches!(again, SaveOutcome::Saved(s) if s.file == "user_role.md" && !s.created));
    /// ```
    pub async fn save(&self, input: SaveInput) -> Result<SaveOutcome> {
        self.check_writable()?;
        self.check_dir()?;
        validate_save(&input)?;
        if self.confirms_writes() {
            return Ok(SaveOutcome::Proposed(Proposal::Save(input)));
        }
        self.save_now(&input).await
    }

    /// Carry out a proposal returned in `confirm` mode (still refused in `off`/`read-only`).
    pub async fn apply_proposal(&self, proposal: Proposal) -> Result<SaveOutcome> {
        self.check_writable()?;
        self.check_dir()?;
        match proposal {
            Proposal::Save(input) => {
                validate_save(&input)?;
                self.save_now(&input).await
            }
            Proposal::Update { file, changes } => self.update_now(&file, &changes).await,
            Proposal::Delete { file } => self.delete_now(&file).await,
        }
    }

    async fn save_now(&self, input: &SaveInput) -> Result<SaveOutcome> {
        // The lock file carries the save's intent as its journal (see `lock_dir_for`); the
        // recovery `lock_dir_for` would run first runs in `save_locked`, with its first reads.
        let rel = save_target(input)?;
        let intent = (!input.skip_index).then_some((input.scope, rel.as_str()));
        let lock = self.acquire_dir_lock(intent).await?;
        let result = self.save_locked(input).await;
        self.unlock_dir(lock).await;
        result
    }

    async fn save_locked(&self, input: &SaveInput) -> Result<SaveOutcome> {
        let memory_type = validate_save(input)?;
        let dir = self.scope_dir(input.scope);
        let rel = save_target(input)?;
        let path = format!("{dir}{rel}");
        // Under the lock, nothing is written before what a killed writer left half done is
        // finished; but looking for it (the journal file) changes nothing, so it runs alongside
        // this save's own first reads: is the target there, and the index. When there was
        // something to repair, they are read again after the repair.
        let reads = || {
            join(self.check_write_target(input.scope, &rel, &path), async {
                match input.skip_index {
                    true => None,
                    false => Some(self.read_index_for_commit(input.scope).await),
                }
            })
        };
        let (pending, (mut exists, mut old_index)) = join(self.journal_pending(), reads()).await;
        if let Some(journal) = pending {
            self.journal_repair(&journal).await;
            (exists, old_index) = reads().await;
        }
        let exists = exists?;
        if !input.replace && exists {
            return Err(already_exists(input, &rel));
        }
        // Only a file that is there has a previous text to put back.
        let previous = match exists {
            true => self.read_optional(&path).await?,
            false => None,
        };
        let fields = MemoryFields {
            name: Some(input.name.clone()),
            description: Some(input.description.clone()),
            memory_type: Some(memory_type),
        };
        let plan = PlannedWrite {
            scope: input.scope,
            text: format_memory_file_modified(&fields, Some(self.clock.now_ms()), &input.body),
            index: None,
            old_index,
            previous,
            rel,
            path,
        };
        self.commit(plan, &fields, input.skip_index).await
    }

    /// Write a memory file and its index entry; on a failed index write, put the file back.
    /// An entry that only adds a line to the index is appended when the host appends
    /// atomically (see [`Store::appended_lines`]); otherwise the index is rewritten.
    /// Must run under the directory lock, after the path's containment check.
    pub(crate) async fn commit(
        &self,
        mut plan: PlannedWrite,
        fields: &MemoryFields,
        skip_index: bool,
    ) -> Result<SaveOutcome> {
        // The name travels too (as the file's key and in its index line): scanned like the text.
        self.guard_secrets(plan.scope, &plan.rel)?;
        self.guard_secrets(plan.scope, &plan.text)?;
        let entry = IndexEntry {
            title: fields.name.clone().unwrap_or_default(),
            file: plan.rel.clone(),
            hook: fields.description.clone().unwrap_or_default(),
        };
        if !skip_index {
            check_entry_round_trip(&entry)?;
            self.guard_secrets(plan.scope, &format_index_entry(&entry))?;
        }
        let mut index_warning = None;
        let mut old_index = String::new();
        let mut index_appended = false;
        if !skip_index {
            let old = match plan.old_index.take() {
                Some(read) => read?,
                None => self.read_index_for_commit(plan.scope).await?,
            };
            // A last line with no end may be part of an append a failed repair has yet to
            // take off: ending it here would leave it in the index for good.
            if self.lock_state.journal_unrepaired.get() && !old.is_empty() && !old.ends_with('\n') {
                return Err(Error::new(
                    Code::HostFs,
                    "a write left half done could not be finished; try again",
                ));
            }
            let (new, appended) = upsert_index_entry_telling(&old, &entry);
            index_warning = self.measure_index(plan.scope, &new);
            if let Some(refusal) = index_warning
                .as_ref()
                .and_then(|w| self.over_cap_refusal(&old, w))
            {
                return Err(refusal);
            }
            plan.index = Some(new);
            old_index = old;
            index_appended = appended;
        }
        // A write that leaves the index alone has nothing to keep in step: no journal.
        let journaled = plan.index.is_some();
        if journaled {
            self.journal_begin(plan.scope, &plan.rel).await?;
        }
        if let Err(e) = self.write_creating_parent(&plan.path, &plan.text).await {
            if journaled {
                self.journal_end().await;
            }
            return Err(e);
        }
        if let Some(index) = &plan.index {
            let index_path = self.index_path(plan.scope);
            let written = match self.appended_lines(&old_index, index, index_appended) {
                Some(added) => match self.append_index(&index_path, &old_index, added).await {
                    Err(IndexAppendError::Restored(e)) => Err(e),
                    // The index may hold part of the line and could not be put back: the file
                    // stays, and the journal has the next writer finish the line (see
                    // `journal::without_cut_append`).
                    Err(IndexAppendError::Cut(e)) => {
                        self.journal_keep(plan.scope, &plan.rel).await;
                        return Err(e);
                    }
                    Ok(()) => Ok(()),
                },
                None => self.write_atomic(&index_path, index).await,
            };
            if let Err(e) = written {
                // If the file cannot be put back either, the journal stays so the next
                // writer brings the index in line with the file.
                if self.roll_back(&plan).await {
                    self.journal_end().await;
                } else {
                    self.journal_keep(plan.scope, &plan.rel).await;
                }
                return Err(e);
            }
            self.journal_end().await;
        }
        Ok(SaveOutcome::Saved(SavedMemory {
            file: root_relative(plan.scope, &plan.rel),
            path: plan.path,
            scope: plan.scope,
            created: plan.previous.is_none(),
            index_warning,
        }))
    }

    /// The lines `new` adds at the end of `old`, when the index can take them as an append:
    /// the host appends atomically (`atomic_append`), `old` is there and ends its last line,
    /// and `new` is `old` with lines added after it (`appended`, as
    /// [`upsert_index_entry_telling`] tells for a new entry; a changed entry rewrites).
    fn appended_lines<'a>(&self, old: &str, new: &'a str, appended: bool) -> Option<&'a str> {
        let caps = self.fs.capabilities();
        if !(appended && caps.append_file && caps.atomic_append && old.ends_with('\n')) {
            return None;
        }
        new.get(old.len()..).filter(|added| !added.is_empty())
    }

    /// Append `added` to the index at `path`, whose text under the lock is `old`. A failed
    /// append may have written part of it, so the index is then put back as `old`; `Cut`
    /// when even that failed.
    async fn append_index(
        &self,
        path: &str,
        old: &str,
        added: &str,
    ) -> std::result::Result<(), IndexAppendError> {
        let Err(e) = self.bounded(self.fs.append_file(path, added)).await else {
            return Ok(());
        };
        let e = fs_error("append", path, e);
        match self.write_atomic(path, old).await {
            Ok(()) => Err(IndexAppendError::Restored(e)),
            Err(_) => Err(IndexAppendError::Cut(e)),
        }
    }

    /// Before any directory is created for a write: team keys pass the reference's key and
    /// symlink checks (dangling links and loops refused, other host errors fail closed);
    /// private paths must not lead outside the memory directory through a symlink either.
    pub(crate) async fn check_containment(
        &self,
        scope: Scope,
        rel: &str,
        path: &str,
    ) -> Result<()> {
        if scope == Scope::Team {
            let team_dir = self.scope_dir(Scope::Team);
            return crate::path_key::validate_team_key(&self.fs, &team_dir, rel)
                .await
                .map(drop);
        }
        let real = crate::path_key::realpath_deepest_existing(&self.fs, path).await?;
        if crate::path_key::is_real_path_within(&self.fs, &real, &self.dir).await {
            Ok(())
        } else {
            Err(Error::new(
                Code::PathSymlinkEscape,
                format!("{rel:?} resolves outside the memory directory through a symlink"),
            ))
        }
    }

    /// [`Store::check_containment`] for a write of `path`, telling whether something is there
    /// (a file, a directory, or a link to one). For a private file at the top of the directory
    /// on a host with `lstat` and `realpath`, one `lstat`: no link there means its real path is
    /// the directory's real path and its name. A link, a deeper path or a host error takes the
    /// full check (and a `stat` for the answer).
    pub(crate) async fn check_write_target(
        &self,
        scope: Scope,
        rel: &str,
        path: &str,
    ) -> Result<bool> {
        // A file at the top: its parent is the directory itself, inside by definition, so it
        // is inside unless it is a link. Deeper paths take the full check.
        let caps = self.fs.capabilities();
        let style = PathStyle::of_dir(&self.dir);
        if scope == Scope::Private
            && caps.realpath
            && caps.lstat
            && style.parent(path) == style.trim_trailing_sep(&self.dir)
        {
            match self.fs.lstat(path).await {
                Ok(st) if st.kind != EntryKind::Symlink => return Ok(true),
                Err(e) if e.is_not_found() => return Ok(false),
                _ => {}
            }
        }
        self.check_containment(scope, rel, path).await?;
        self.path_exists(path).await
    }

    /// [`Store::read_index_for_write`] for a commit. The private index sits in the memory
    /// directory itself, so when `lstat` finds no link there (a regular file, or nothing) it is
    /// inside whatever the directory's real path is: read it (or take it as empty) without
    /// resolving either. With the host's `readHead`, the file is read as bytes, as long as the
    /// `lstat` said plus one (fewer back: the whole file), so the host does not decode it to a
    /// string that is encoded again on its way in, and bytes that are not UTF-8 are refused
    /// as [`Store::check_bytes_intact`] refuses them. A link, a directory or a host error takes
    /// the full contained read.
    async fn read_index_for_commit(&self, scope: Scope) -> Result<String> {
        let caps = self.fs.capabilities();
        if scope != Scope::Private || !caps.lstat {
            return self.read_index_for_write(scope).await;
        }
        let path = self.index_path(scope);
        let size = match self.bounded(self.fs.lstat(&path)).await {
            Ok(st) if st.kind == EntryKind::File => st.size,
            Err(e) if e.is_not_found() => return Ok(String::new()),
            _ => return self.read_index_for_write(scope).await,
        };
        if caps.read_head && size.is_finite() && (0.0..MAX_HOST_FILE_LEN as f64).contains(&size) {
            let want = size as usize + 1;
            match self.bounded(self.fs.read_head(&path, want)).await {
                Ok(bytes) if bytes.len() < want => {
                    return String::from_utf8(bytes)
                        .map_err(|e| not_utf8(&path, e.utf8_error().valid_up_to()));
                }
                // Longer than the `lstat` said: changed meanwhile, read it whole below.
                Ok(_) => {}
                // Gone since the `lstat`: as if it had not been there.
                Err(e) if e.is_not_found() => return Ok(String::new()),
                Err(e) => return Err(fs_error("read", &path, e)),
            }
        }
        // Gone since the `lstat`: as if it had not been there.
        let text = self.read_optional(&path).await?.unwrap_or_default();
        self.check_bytes_intact(&path, &text).await?;
        Ok(text)
    }

    /// The secret guard: every write into team memory, and into private memory unless the
    /// host turned [`super::StoreConfig::guard_private_secrets`] off, is refused if the secret
    /// scanner finds anything. The error names the rules, never the secret.
    pub(crate) fn guard_secrets(&self, scope: Scope, text: &str) -> Result<()> {
        match scope {
            Scope::Team => Ok(crate::secrets::check_write_for_secrets(
                "team memory",
                text,
            )?),
            Scope::Private if self.config.guard_private_secrets => {
                Ok(crate::secrets::check_private_write_for_secrets(text)?)
            }
            Scope::Private => Ok(()),
        }
    }

    /// Best effort: restore the memory file as it was before a failed commit.
    /// True when the file is back as it was.
    async fn roll_back(&self, plan: &PlannedWrite) -> bool {
        match &plan.previous {
            Some(text) => self.write_atomic(&plan.path, text).await.is_ok(),
            None => self.fs.remove(&plan.path).await.is_ok(),
        }
    }
}
