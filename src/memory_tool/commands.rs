//! The memory tool's commands over a [`crate::store::Store`]. Results and error texts are those of
//! the Anthropic TS SDK's local-filesystem backend (`BetaLocalFilesystemMemoryTool`), which the
//! model has been trained against; where memdir differs, the README says so.

use super::path::{is_reserved_name, resolve_tool_path, tool_path};
use super::MemoryTool;
use super::{MemoryToolCommand, MemoryToolOutcome, MAX_TOOL_FILE_BYTES};
use crate::error::{Code, Error, Result};
use crate::frontmatter::{format_memory_file, split_frontmatter, MemoryFields};
use crate::host::{Clock, EntryKind, FieldValue, FileStat, FileSystem, Telemetry};
use crate::jsstr::{js_number_to_string, to_fixed_1};
use crate::store::listing::is_memory_path;
use crate::store::names::{check_index_representable, check_not_log, is_hidden_char, is_log_path};
use crate::store::{Scope, WriteMode, TEAM_DIR};
use crate::types::MemoryType;
use std::fmt::Write as _;

/// Most files a directory delete removes.
const MAX_DELETE_FILES: usize = 10_000;
/// Most lines `view` shows (the reference backend's limit).
const MAX_LINES: usize = 999_999;

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidInput, message)
}

/// The parent of an absolute path (`/a/b` → `/a`).
fn parent_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => path.get(..i).unwrap_or("/"),
    }
}

/// True when `path` is `root` or below it.
fn within(root: &str, path: &str) -> bool {
    let root = root.trim_end_matches('/');
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A size as the reference backend prints it: `0B`, `55B`, `4K`, `1.5K`, `2M` (tested below).
pub(crate) fn sdk_size(bytes: f64) -> String {
    if bytes.is_nan() || bytes <= 0.0 {
        return "0B".to_owned();
    }
    let mut i = 0usize;
    let mut unit = 1.0f64;
    while i < 3 && bytes >= unit * 1024.0 {
        unit *= 1024.0;
        i += 1;
    }
    let size = bytes / unit;
    let digits = if size % 1.0 == 0.0 {
        js_number_to_string(size)
    } else {
        to_fixed_1(size)
    };
    let suffix = ["B", "K", "M", "G"].get(i).copied().unwrap_or("G");
    format!("{digits}{suffix}")
}

/// Lines `start..end` of `lines`, numbered as the reference backend numbers them (1-based,
/// right-aligned in 6 columns, a tab), joined by newlines.
fn numbered(lines: &[&str], start: usize, end: usize) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate().take(end).skip(start) {
        if i > start {
            out.push('\n');
        }
        let _ = write!(out, "{:>6}\t{line}", i + 1);
    }
    out
}

/// `view` of a file: every line of `text.split("\n")` (so a final newline shows as an empty last
/// line), numbered, optionally cut to `view_range` as the reference backend cuts it (`slice` of
/// the first line, at least 1, to the last, -1 meaning the end; nothing is an error).
fn view_file(path: &str, text: &str, range: Option<[i64; 2]>) -> Result<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.len() > MAX_LINES {
        return Err(invalid(format!(
            "File {path} has too many lines ({}). Maximum is 999,999 lines.",
            lines.len()
        )));
    }
    let n = i64::try_from(lines.len()).unwrap_or(i64::MAX);
    let (start, end) = match range {
        None => (0, n),
        Some([s, e]) => (s.max(1) - 1, if e == -1 { n } else { e }),
    };
    // JS `slice`: a negative index counts from the end.
    let at =
        |i: i64| usize::try_from(if i < 0 { n + i } else { i }).map_or(0, |i| i.min(lines.len()));
    Ok(format!(
        "Here's the content of {path} with line numbers:\n{}",
        numbered(&lines, at(start), at(end))
    ))
}

/// Where `old` occurs in `text`: the 1-based lines its occurrences start on (for a one-line
/// `old_str`, the lines that contain it: the reference backend's rule) and the byte offset of
/// the first. An empty `old_str` is in every line, as in the reference backend.
fn match_lines(text: &str, old: &str) -> (Vec<usize>, Option<usize>) {
    if old.is_empty() {
        return ((1..=text.split('\n').count()).collect(), Some(0));
    }
    let (mut lines, mut line, mut seen, mut from) = (Vec::new(), 1, 0, 0);
    while let Some(i) = text.get(from..).and_then(|rest| rest.find(old)) {
        let at = from + i;
        line += text
            .get(seen..at)
            .map_or(0, |gap| gap.matches('\n').count());
        seen = at;
        if lines.last() != Some(&line) {
            lines.push(line);
        }
        from = at + old.len();
    }
    (lines, text.find(old))
}

/// The reference backend's `str_replace` result: the edited line with two lines of context on
/// each side, numbered.
fn edit_snippet(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let changed = line.saturating_sub(1);
    format!(
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n{}",
        numbered(&lines, changed.saturating_sub(2), changed + 3)
    )
}

/// The memory a file name suggests: `feedback_testing_policy.md` → (`testing policy`,
/// feedback); other names are `project` memories named after the file.
fn derived_fields(rel: &str) -> MemoryFields {
    let file = rel.rsplit('/').next().unwrap_or(rel);
    let stem = file.strip_suffix(".md").unwrap_or(file);
    let (memory_type, name) = match stem.split_once(['_', '-']) {
        Some((t, rest)) if !rest.is_empty() => match MemoryType::parse(t) {
            Some(t) => (t, rest),
            None => (MemoryType::Project, stem),
        },
        _ => (MemoryType::Project, stem),
    };
    MemoryFields {
        description: Some(format!("Notes in {rel}, written through the memory tool")),
        name: Some(name.replace(['_', '-'], " ").trim().to_owned()),
        memory_type: Some(memory_type),
    }
}

/// True for a tool path (relative to the memory directory) that is a memory with an index entry:
/// a `.md` file other than an index, outside the daily logs.
fn is_indexed_memory(rel: &str) -> bool {
    is_memory_path(rel) && !is_log_path(rel)
}

impl<F: FileSystem, C: Clock, T: Telemetry> MemoryTool<'_, F, C, T> {
    /// Run one memory-tool command (see the module docs): `view` reads; writes are refused in
    /// `off`/`read-only`, proposed in `confirm`, carried out in `auto`.
    pub async fn run(&self, command: MemoryToolCommand) -> Result<MemoryToolOutcome> {
        if self.store.write_mode() == WriteMode::Off {
            return Err(Error::new(Code::WriteForbidden, "memory is off"));
        }
        if command.writes() {
            self.store.check_writable()?;
            self.check_paths(&command)?;
            if self.store.confirms_writes() {
                self.emit(&command, "proposed");
                return Ok(MemoryToolOutcome::Proposed {
                    text: format!(
                        "The {} was proposed to the user and is waiting for approval; it has \
                         not been applied yet.",
                        command.name()
                    ),
                    command,
                });
            }
        }
        self.apply(command)
            .await
            .map(|text| MemoryToolOutcome::Done { text })
    }

    /// Carry out a memory-tool command, also one proposed in `confirm` mode (this is the host's
    /// approval); still refused in `off` and `read-only`.
    pub async fn apply(&self, command: MemoryToolCommand) -> Result<String> {
        if command.writes() {
            self.store.check_writable()?;
            self.store.check_dir()?;
        } else if self.store.write_mode() == WriteMode::Off {
            return Err(Error::new(Code::WriteForbidden, "memory is off"));
        }
        self.check_paths(&command)?;
        // The root exists from the first use on, as with the reference backend (which creates
        // it when it starts): a model's first `view /memories` lists an empty directory.
        if self.store.write_mode() == WriteMode::Auto || command.writes() {
            self.store.mkdir_all(self.store.dir()).await?;
        }
        let result = if command.writes() {
            let lock = self.store.lock_dir().await?;
            let result = self.write(&command).await;
            self.store.unlock_dir(lock).await;
            result
        } else {
            self.view(&command).await
        };
        self.emit(&command, if result.is_ok() { "ok" } else { "error" });
        result
    }

    fn emit(&self, command: &MemoryToolCommand, status: &str) {
        self.store.telemetry().emit(
            "memdir_memory_tool",
            &[
                ("command", FieldValue::Str(command.name().to_owned())),
                ("status", FieldValue::Str(status.to_owned())),
            ],
        );
    }

    fn check_paths(&self, command: &MemoryToolCommand) -> Result<()> {
        match command {
            MemoryToolCommand::Rename { old_path, new_path } => {
                let old = resolve_tool_path(old_path)?;
                let new = resolve_tool_path(new_path)?;
                if old.is_empty() {
                    return Err(invalid("Cannot rename the /memories directory itself"));
                }
                if new.is_empty() {
                    return Err(Error::new(
                        Code::AlreadyExists,
                        format!("The destination {new_path} already exists"),
                    ));
                }
                check_not_log(&old)?;
                check_not_log(&new)?;
                self.check_new_name(&new)
            }
            MemoryToolCommand::View { path, .. } => resolve_tool_path(path).map(drop),
            MemoryToolCommand::Create { path, .. }
            | MemoryToolCommand::StrReplace { path, .. }
            | MemoryToolCommand::Insert { path, .. }
            | MemoryToolCommand::Delete { path } => {
                let rel = resolve_tool_path(path)?;
                if rel.is_empty() {
                    return Err(match command {
                        MemoryToolCommand::Create { .. } => {
                            Error::new(Code::AlreadyExists, format!("File {path} already exists"))
                        }
                        MemoryToolCommand::Delete { .. } => {
                            invalid("Cannot delete the /memories directory itself")
                        }
                        _ => invalid(format!("The path {path} is not a file.")),
                    });
                }
                // The daily logs are appended to by the library only.
                check_not_log(&rel)?;
                if matches!(command, MemoryToolCommand::Create { .. }) {
                    self.check_new_name(&rel)?;
                }
                Ok(())
            }
        }
    }

    /// A name a write is about to create (`create`, the target of `rename`): no bidirectional or
    /// invisible characters, representable in an index line, and — where the secret guard
    /// applies (team memory; private memory when the host asked) — no secret in the name.
    fn check_new_name(&self, rel: &str) -> Result<()> {
        if rel.chars().any(is_hidden_char) {
            return Err(invalid(format!(
                "{} contains a bidirectional or invisible formatting character",
                tool_path(rel)
            )));
        }
        check_index_representable(rel)?;
        self.store.guard_secrets(scope_of(rel), rel)
    }

    /// The absolute path of a tool path, checked not to leave the directory through a symlink:
    /// the deepest existing ancestor must resolve inside the directory, and when the parent
    /// exists, the target itself too (see `Store::check_inside`).
    async fn abs(&self, path: &str) -> Result<(String, String)> {
        let rel = resolve_tool_path(path)?;
        if rel.is_empty() {
            return Ok((rel, self.store.dir().to_owned()));
        }
        let abs = format!("{}{rel}", self.store.dir());
        if self.parent_exists(&abs).await? {
            self.store.check_inside(self.store.dir(), &abs).await?;
        }
        Ok((rel, abs))
    }

    /// With `realpath`: walk up from the parent of `abs` to the first ancestor that exists and
    /// refuse if it resolves outside the memory directory. True when the parent itself exists
    /// (always true without `realpath`, where only the lexical checks apply).
    async fn parent_exists(&self, abs: &str) -> Result<bool> {
        if !self.store.fs().capabilities().realpath {
            return Ok(true);
        }
        let root = self.store.dir().trim_end_matches('/');
        let real_root = match self.store.fs().realpath(root).await {
            Ok(real) => real,
            Err(e) if e.is_not_found() => return Ok(false),
            Err(e) => return Err(Error::host(Code::PathUnverifiable, root, e)),
        };
        let mut probe = parent_of(abs);
        let mut first = true;
        while probe.len() > root.len() {
            match self.store.fs().realpath(probe).await {
                Ok(real) => {
                    if !within(&real_root, &real) {
                        return Err(Error::new(
                            Code::PathSymlinkEscape,
                            "Path would escape /memories directory via symlink",
                        ));
                    }
                    return Ok(first);
                }
                Err(e) if e.is_not_found() => {
                    probe = parent_of(probe);
                    first = false;
                }
                Err(e) => return Err(Error::host(Code::PathUnverifiable, probe, e)),
            }
        }
        Ok(first)
    }

    async fn view(&self, command: &MemoryToolCommand) -> Result<String> {
        let MemoryToolCommand::View { path, view_range } = command else {
            return Err(invalid("not a view"));
        };
        let (rel, abs) = self.abs(path).await?;
        let st = match self.store.fs().stat(abs.trim_end_matches('/')).await {
            Ok(st) => st,
            // A root that could not be created (read-only) is an empty directory.
            Err(e) if e.is_not_found() && rel.is_empty() => FileStat {
                kind: EntryKind::Dir,
                size: 0.0,
                mtime_ms: 0.0,
            },
            Err(e) if e.is_not_found() => {
                return Err(Error::new(
                    Code::NotFound,
                    format!("The path {path} does not exist. Please provide a valid path."),
                ))
            }
            Err(e) => return Err(Error::fs("stat", &abs, e)),
        };
        if st.kind == EntryKind::Dir {
            return self.list(path, &rel, st.size).await;
        }
        // Contained like every read: a link out of the directory is `PATH_SYMLINK_ESCAPE`.
        let text = self.store.read_contained(&abs).await?;
        view_file(path, &text, *view_range)
    }

    /// Entries of a directory, sorted by code point (as JS sorts them, but for names mixing
    /// characters past U+FFFF with ones in U+E000–U+FFFF); `[]` when it cannot be listed.
    async fn sorted_entries(&self, rel: &str) -> Vec<(String, EntryKind)> {
        let abs = format!("{}{rel}", self.store.dir());
        let Ok(entries) = self.store.fs().read_dir(abs.trim_end_matches('/')).await else {
            return Vec::new();
        };
        let mut out: Vec<(String, EntryKind)> =
            entries.into_iter().map(|e| (e.name, e.kind)).collect();
        crate::sort::sort_by(&mut out, |a, b| a.0.cmp(&b.0));
        out
    }

    /// The reference backend's listing: a header, the directory's own size and path, then every
    /// entry two levels deep in sorted pre-order (directories end with `/`), hidden entries and
    /// `node_modules` left out, each with its size (`55B`, `4K`) and the path as given plus its
    /// relative path.
    async fn list(&self, path: &str, rel: &str, size: f64) -> Result<String> {
        let mut out = format!(
            "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:\n{}\t{path}",
            sdk_size(size)
        );
        for (name, kind) in self.sorted_entries(rel).await {
            let Some(child) = self.list_entry(&mut out, path, rel, "", &name, kind).await else {
                continue;
            };
            let shown = child.get(rel.len()..).unwrap_or("").trim_start_matches('/');
            for (inner, inner_kind) in self.sorted_entries(&child).await {
                self.list_entry(&mut out, path, &child, shown, &inner, inner_kind)
                    .await;
            }
        }
        Ok(out)
    }

    /// One entry of a listing: its line (size, then the path as given and the path below it),
    /// unless it is hidden, `node_modules`, a file of the library's or a link leading out. The
    /// entry's path relative to the memory directory when it is a directory.
    async fn list_entry(
        &self,
        out: &mut String,
        path: &str,
        dir_rel: &str,
        shown_dir: &str,
        name: &str,
        kind: EntryKind,
    ) -> Option<String> {
        if name.starts_with('.') || name == "node_modules" || is_reserved_name(name) {
            return None;
        }
        let join = |dir: &str| {
            if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            }
        };
        let child = join(dir_rel);
        let child_abs = format!("{}{child}", self.store.dir());
        // A link is listed only when it resolves inside the directory.
        if kind == EntryKind::Symlink
            && !matches!(
                self.store.contained_real_path(&child_abs).await,
                Ok(Some(_))
            )
        {
            return None;
        }
        let st = self.store.fs().stat(&child_abs).await.ok()?;
        let dir = st.kind == EntryKind::Dir;
        if dir || st.kind == EntryKind::File {
            let slash = if dir { "/" } else { "" };
            let _ = write!(
                out,
                "\n{}\t{path}/{}{slash}",
                sdk_size(st.size),
                join(shown_dir)
            );
        }
        dir.then_some(child)
    }

    /// A file an edit needs: its stat must say it is a file.
    /// With `edit`, the file is about to be rewritten whole: refused when its bytes are not
    /// UTF-8 (see `Store::check_bytes_intact`).
    async fn existing_file(&self, path: &str, abs: &str, edit: bool) -> Result<String> {
        match self.store.fs().stat(abs).await {
            Ok(st) if st.kind == EntryKind::Dir => {
                return Err(invalid(format!("The path {path} is not a file.")))
            }
            Ok(_) => {}
            Err(e) if e.is_not_found() => {
                return Err(Error::new(
                    Code::NotFound,
                    format!("The path {path} does not exist. Please provide a valid path."),
                ))
            }
            Err(e) => return Err(Error::fs("stat", abs, e)),
        }
        let text = self.store.read_optional(abs).await?.ok_or_else(|| {
            Error::new(
                Code::NotFound,
                format!(
                    "The file {path} no longer exists (may have been deleted or renamed concurrently)."
                ),
            )
        })?;
        if edit {
            self.store.check_bytes_intact(abs, &text).await?;
        }
        Ok(text)
    }

    /// Write `text` to a tool file, after the size and (for team paths) secret checks.
    async fn put(&self, rel: &str, abs: &str, text: &str) -> Result<()> {
        if text.len() > MAX_TOOL_FILE_BYTES {
            return Err(invalid(format!(
                "{} would be {} bytes; the limit is {MAX_TOOL_FILE_BYTES}",
                tool_path(rel),
                text.len()
            )));
        }
        let scope = scope_of(rel);
        self.store.guard_secrets(scope, text)?;
        self.store
            .check_containment(scope, store_rel(rel), abs)
            .await?;
        self.store.ensure_parent(abs).await?;
        self.store.write_atomic(abs, text).await
    }

    /// Before a change to `rel`: when it is a memory, journal it (as a save does), so the index
    /// follows the file even if this writer dies half-way. True when journaled.
    async fn begin(&self, rel: &str) -> Result<bool> {
        if !is_indexed_memory(rel) {
            return Ok(false);
        }
        self.store
            .journal_begin(scope_of(rel), store_rel(rel))
            .await?;
        Ok(true)
    }

    /// After the change: the journal's repair brings the index entry in line with the file
    /// (upserted when it has a `name` and a `type`, removed otherwise or when it is gone).
    async fn settle(&self, journaled: bool) {
        if journaled {
            self.store.journal_recover().await;
        }
    }

    /// A write command: the file change, then the index entries kept in step. A file written
    /// whole (`create`, `str_replace`, `insert`) is journaled like a save, so a writer killed
    /// between the two is repaired by the next write.
    async fn write(&self, command: &MemoryToolCommand) -> Result<String> {
        let (rel, abs, text, message) = match command {
            MemoryToolCommand::View { .. } => return Err(invalid("view does not write")),
            MemoryToolCommand::Delete { path } => return self.delete(path).await,
            MemoryToolCommand::Rename { old_path, new_path } => {
                return self.rename(old_path, new_path).await
            }
            MemoryToolCommand::Create { path, file_text } => {
                let (rel, abs) = self.abs(path).await?;
                if self.store.path_exists(&abs).await? {
                    return Err(Error::new(
                        Code::AlreadyExists,
                        format!("File {path} already exists"),
                    ));
                }
                // A memory written without frontmatter gets one (from its file name).
                let text = if is_indexed_memory(&rel) && split_frontmatter(file_text).is_none() {
                    format_memory_file(&derived_fields(&rel), file_text)
                } else {
                    file_text.clone()
                };
                (
                    rel,
                    abs,
                    text,
                    format!("File created successfully at: {path}"),
                )
            }
            MemoryToolCommand::StrReplace {
                path,
                old_str,
                new_str,
            } => {
                let (rel, abs) = self.abs(path).await?;
                let text = self.existing_file(path, &abs, true).await?;
                let (lines, first) = match_lines(&text, old_str);
                let (line, at) = match (lines.as_slice(), first) {
                    ([line], Some(at)) => (*line, at),
                    ([], _) | (_, None) => {
                        return Err(invalid(format!(
                            "No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."
                        )))
                    }
                    (many, _) => {
                        let list: Vec<String> = many.iter().map(usize::to_string).collect();
                        return Err(invalid(format!(
                            "No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {}. Please ensure it is unique",
                            crate::jsstr::join(&list, ", ")
                        )));
                    }
                };
                let mut updated = String::with_capacity(text.len() + new_str.len());
                updated.push_str(text.get(..at).unwrap_or(""));
                updated.push_str(new_str);
                updated.push_str(text.get(at + old_str.len()..).unwrap_or(""));
                let message = edit_snippet(&updated, line);
                (rel, abs, updated, message)
            }
            MemoryToolCommand::Insert {
                path,
                insert_line,
                insert_text,
            } => {
                let (rel, abs) = self.abs(path).await?;
                let text = self.existing_file(path, &abs, true).await?;
                let mut lines: Vec<&str> = text.split('\n').collect();
                let at = usize::try_from(*insert_line)
                    .ok()
                    .filter(|n| *n <= lines.len())
                    .ok_or_else(|| {
                        invalid(format!(
                            "Invalid `insert_line` parameter: {insert_line}. It should be within the range of lines of the file: [0, {}]",
                            lines.len()
                        ))
                    })?;
                lines.insert(at, insert_text.strip_suffix('\n').unwrap_or(insert_text));
                (
                    rel,
                    abs,
                    crate::jsstr::join(&lines, "\n"),
                    format!("The file {path} has been edited."),
                )
            }
        };
        let journaled = self.begin(&rel).await?;
        let result = self.put(&rel, &abs, &text).await;
        self.settle(journaled).await;
        result.map(|()| message)
    }

    async fn delete(&self, path: &str) -> Result<String> {
        let (rel, abs) = self.abs(path).await?;
        let st = self.store.fs().stat(&abs).await.map_err(|e| {
            if e.is_not_found() {
                Error::new(Code::NotFound, format!("The path {path} does not exist"))
            } else {
                Error::fs("stat", &abs, e)
            }
        })?;
        let (files, dirs) = if st.kind == EntryKind::Dir {
            self.below(&rel).await
        } else {
            (vec![rel], Vec::new())
        };
        // Directories go too where the host's `remove` takes them (deepest first).
        for (i, target) in files.iter().chain(dirs.iter().rev()).enumerate() {
            let target_abs = format!("{}{target}", self.store.dir());
            let journaled = i < files.len() && self.begin(target).await?;
            let removed = self.store.fs().remove(&target_abs).await;
            self.settle(journaled).await;
            if let (true, Err(e)) = (i < files.len(), removed) {
                return Err(Error::fs("remove", &target_abs, e));
            }
        }
        Ok(format!("Successfully deleted {path}"))
    }

    async fn rename(&self, old_path: &str, new_path: &str) -> Result<String> {
        let (old_rel, old_abs) = self.abs(old_path).await?;
        let (new_rel, new_abs) = self.abs(new_path).await?;
        if self.store.path_exists(&new_abs).await? {
            return Err(Error::new(
                Code::AlreadyExists,
                format!("The destination {new_path} already exists"),
            ));
        }
        let text = self
            .existing_file(old_path, &old_abs, false)
            .await
            .map_err(|e| {
                if e.code == Code::NotFound {
                    Error::new(
                        Code::NotFound,
                        format!("The path {old_path} does not exist"),
                    )
                } else {
                    e
                }
            })?;
        let scope = scope_of(&new_rel);
        // What lands in team memory passes the secret guard first.
        self.store.guard_secrets(scope, &text)?;
        self.store
            .check_containment(scope, store_rel(&new_rel), &new_abs)
            .await?;
        self.store.ensure_parent(&new_abs).await?;
        let journaled = self.begin(&new_rel).await?;
        let moved = if self.store.fs().capabilities().rename {
            self.store
                .fs()
                .rename(&old_abs, &new_abs)
                .await
                .map_err(|e| Error::fs("rename", &old_abs, e))
        } else {
            match self.store.write_atomic(&new_abs, &text).await {
                Ok(()) => self
                    .store
                    .fs()
                    .remove(&old_abs)
                    .await
                    .map_err(|e| Error::fs("remove", &old_abs, e)),
                Err(e) => Err(e),
            }
        };
        self.settle(journaled).await;
        let journaled = self.begin(&old_rel).await?;
        self.settle(journaled).await;
        moved?;
        Ok(format!("Successfully renamed {old_path} to {new_path}"))
    }

    /// Regular files and directories below a directory (relative to the memory directory), the
    /// library's own files left out; symlinked directories are not entered.
    async fn below(&self, rel: &str) -> (Vec<String>, Vec<String>) {
        let mut files = Vec::new();
        let mut dirs = vec![rel.to_owned()];
        let mut queue = vec![rel.to_owned()];
        while let Some(dir) = queue.pop() {
            let abs = format!("{}{dir}", self.store.dir());
            let Ok(entries) = self.store.fs().read_dir(&abs).await else {
                continue;
            };
            for entry in entries {
                if is_reserved_name(&entry.name) || entry.name.contains('/') {
                    continue;
                }
                let child = format!("{dir}/{}", entry.name);
                match entry.kind {
                    EntryKind::Dir => {
                        dirs.push(child.clone());
                        queue.push(child);
                    }
                    _ if files.len() < MAX_DELETE_FILES => files.push(child),
                    _ => {}
                }
            }
        }
        (files, dirs)
    }
}

/// Which memory a tool path (relative to the memory directory) belongs to.
fn scope_of(rel: &str) -> Scope {
    if rel.starts_with(TEAM_DIR) {
        Scope::Team
    } else {
        Scope::Private
    }
}

/// `rel` relative to its scope's directory (what the store's containment check takes).
fn store_rel(rel: &str) -> &str {
    rel.strip_prefix(TEAM_DIR).unwrap_or(rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_views_and_snippets_follow_the_reference_backend() {
        let sizes = [
            (0.0, "0B"),
            (55.0, "55B"),
            (1023.0, "1023B"),
            (1024.0, "1K"),
            (1536.0, "1.5K"),
            (4096.0, "4K"),
            (1_048_576.0, "1M"),
            (3.0 * 1_073_741_824.0, "3G"),
        ];
        for (n, want) in sizes {
            assert_eq!(sdk_size(n), want, "{n}");
        }
        let view = view_file("/memories/a", "one\ntwo\nthree\n", Some([2, -1])).unwrap();
        assert_eq!(
            view,
            "Here's the content of /memories/a with line numbers:\n     2\ttwo\n     3\tthree\n     4\t"
        );
        let past = view_file("/memories/a", "one\n", Some([5, 9])).unwrap();
        assert_eq!(
            past,
            "Here's the content of /memories/a with line numbers:\n"
        );
        assert_eq!(
            edit_snippet("a\nb\nc\nd\ne\nf\ng", 4),
            "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     2\tb\n     3\tc\n     4\td\n     5\te\n     6\tf"
        );
        assert_eq!(match_lines("x a\ny\na a", "a"), (vec![1, 3], Some(2)));
        assert_eq!(match_lines("a\nb\na\nb", "a\nb"), (vec![1, 3], Some(0)));
    }

    #[test]
    fn a_memory_is_derived_from_its_file_name() {
        let fields = derived_fields("team/feedback_testing-policy.md");
        assert_eq!(fields.name.as_deref(), Some("testing policy"));
        assert_eq!(fields.memory_type, Some(MemoryType::Feedback));
        let plain = derived_fields("notes.md");
        assert_eq!(plain.name.as_deref(), Some("notes"));
        assert_eq!(plain.memory_type, Some(MemoryType::Project));
        assert_eq!(derived_fields("user_.md").name.as_deref(), Some("user"));
    }
}
