//! The memory tool's commands over a [`crate::store::Store`].

use super::path::{is_reserved_name, resolve_tool_path, tool_path};
use super::MemoryTool;
use super::{MemoryToolCommand, MemoryToolOutcome, MAX_TOOL_FILE_BYTES};
use crate::error::{Code, Error, Result};
use crate::host::{Clock, EntryKind, FieldValue, FileStat, FileSystem, Telemetry};
use crate::size::format_file_size;
use crate::store::names::{check_index_representable, check_not_log, is_hidden_char};
use crate::store::{Scope, WriteMode, TEAM_DIR};

/// Most files a directory delete removes.
const MAX_DELETE_FILES: usize = 10_000;

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

/// Lines of a file as the tool numbers them (a final newline does not start a line).
fn file_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').collect()
}

/// `text` with `insert` placed after line `after` (0 = before the first line).
fn insert_after(text: &str, after: usize, insert: &str) -> String {
    let mut offset = 0;
    for _ in 0..after {
        match text.get(offset..).and_then(|rest| rest.find('\n')) {
            Some(i) => offset += i + 1,
            None => offset = text.len(),
        }
    }
    let (head, tail) = text.split_at(offset.min(text.len()));
    let mut out = String::with_capacity(text.len() + insert.len() + 2);
    out.push_str(head);
    if !head.is_empty() && !head.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(insert);
    if !insert.ends_with('\n') && !tail.is_empty() {
        out.push('\n');
    }
    out.push_str(tail);
    out
}

fn numbered(tool: &str, text: &str, range: Option<[i64; 2]>) -> Result<String> {
    let lines = file_lines(text);
    let total = lines.len();
    let (start, end) = match range {
        None => (1, total),
        Some([s, e]) => {
            let end = if e == -1 { total as i64 } else { e };
            if s < 1 || s > total as i64 || end < s || end > total as i64 {
                return Err(invalid(format!(
                    "view_range [{s}, {e}] is outside the file's {total} lines"
                )));
            }
            (s as usize, end as usize)
        }
    };
    if total == 0 {
        return Ok(format!("{tool} is empty."));
    }
    let mut out = format!("Lines {start}–{end} of {tool} ({total} lines):\n");
    for (i, line) in lines.iter().enumerate().take(end).skip(start - 1) {
        out.push_str(&format!("{:>6}\t{line}\n", i + 1));
    }
    Ok(out)
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
                for p in [old_path, new_path] {
                    let rel = resolve_tool_path(p)?;
                    if rel.is_empty() {
                        return Err(invalid("/memories itself cannot be renamed"));
                    }
                    check_not_log(&rel)?;
                }
                self.check_new_name(&resolve_tool_path(new_path)?)
            }
            MemoryToolCommand::View { path, .. } => resolve_tool_path(path).map(drop),
            MemoryToolCommand::Create { path, .. }
            | MemoryToolCommand::StrReplace { path, .. }
            | MemoryToolCommand::Insert { path, .. }
            | MemoryToolCommand::Delete { path } => {
                let rel = resolve_tool_path(path)?;
                if rel.is_empty() {
                    return Err(invalid(format!(
                        "{path} is the memory directory, not a file"
                    )));
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
                            format!(
                                "{} leads outside the memory directory",
                                tool_path(abs.get(self.store.dir().len()..).unwrap_or(""))
                            ),
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
        let st = self.stat(&rel, abs.trim_end_matches('/')).await?;
        if st.kind == EntryKind::Dir {
            return self.list(&rel).await;
        }
        // Contained like every read: a link out of the directory is `PATH_SYMLINK_ESCAPE`.
        let text = self.store.read_contained(&abs).await?;
        numbered(&tool_path(&rel), &text, *view_range)
    }

    async fn list(&self, rel: &str) -> Result<String> {
        let shown = tool_path(rel);
        let mut out = format!("{shown}, two levels deep (hidden entries left out):\n");
        let mut queue = vec![(rel.to_owned(), 0usize)];
        let mut lines = Vec::new();
        while let Some((dir_rel, depth)) = queue.pop() {
            let abs = format!("{}{dir_rel}", self.store.dir());
            let Ok(entries) = self.store.fs().read_dir(abs.trim_end_matches('/')).await else {
                continue;
            };
            for entry in entries {
                if entry.name.starts_with('.') || is_reserved_name(&entry.name) {
                    continue;
                }
                let child = if dir_rel.is_empty() {
                    entry.name.clone()
                } else {
                    format!("{dir_rel}/{}", entry.name)
                };
                let child_abs = format!("{}{child}", self.store.dir());
                // A link is listed only when it resolves inside the directory.
                if entry.kind == EntryKind::Symlink
                    && !matches!(
                        self.store.contained_real_path(&child_abs).await,
                        Ok(Some(_))
                    )
                {
                    continue;
                }
                match self.store.fs().stat(&child_abs).await {
                    Ok(st) if st.kind == EntryKind::Dir => {
                        lines.push(format!("dir\t{}/", tool_path(&child)));
                        if depth + 1 < 2 {
                            queue.push((child, depth + 1));
                        }
                    }
                    Ok(st) => lines.push(format!(
                        "{}\t{}",
                        format_file_size(st.size),
                        tool_path(&child)
                    )),
                    Err(_) => {}
                }
            }
        }
        crate::sort::sort_by(&mut lines, |a, b| {
            a.split('\t').nth(1).cmp(&b.split('\t').nth(1))
        });
        if lines.is_empty() {
            out.push_str("(empty)\n");
        }
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        Ok(out)
    }

    /// Read a file the command needs to exist.
    async fn read_existing(&self, rel: &str, abs: &str) -> Result<String> {
        self.store
            .read_optional(abs)
            .await?
            .ok_or_else(|| missing(rel))
    }

    /// Metadata of a path the command needs to exist.
    async fn stat(&self, rel: &str, abs: &str) -> Result<FileStat> {
        self.store.fs().stat(abs).await.map_err(|e| {
            if e.is_not_found() {
                missing(rel)
            } else {
                Error::fs("stat", abs, e)
            }
        })
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

    async fn write(&self, command: &MemoryToolCommand) -> Result<String> {
        match command {
            MemoryToolCommand::View { .. } => Err(invalid("view does not write")),
            MemoryToolCommand::Create { path, file_text } => {
                let (rel, abs) = self.abs(path).await?;
                let existed = self.store.path_exists(&abs).await?;
                self.put(&rel, &abs, file_text).await?;
                let verb = if existed { "Overwrote" } else { "Created" };
                Ok(format!("{verb} {}.", tool_path(&rel)))
            }
            MemoryToolCommand::StrReplace {
                path,
                old_str,
                new_str,
            } => {
                let (rel, abs) = self.abs(path).await?;
                let text = self.read_existing(&rel, &abs).await?;
                self.store.check_bytes_intact(&abs, &text).await?;
                if old_str.is_empty() {
                    return Err(invalid("old_str must not be empty"));
                }
                let count = text.matches(old_str.as_str()).count();
                if count != 1 {
                    return Err(invalid(format!(
                        "old_str must occur exactly once in {}; it occurs {count} times",
                        tool_path(&rel)
                    )));
                }
                let updated = text.replacen(old_str.as_str(), new_str, 1);
                self.put(&rel, &abs, &updated).await?;
                Ok(format!("Edited {}.", tool_path(&rel)))
            }
            MemoryToolCommand::Insert {
                path,
                insert_line,
                insert_text,
            } => {
                let (rel, abs) = self.abs(path).await?;
                let text = self.read_existing(&rel, &abs).await?;
                self.store.check_bytes_intact(&abs, &text).await?;
                let total = file_lines(&text).len();
                let after = usize::try_from(*insert_line)
                    .ok()
                    .filter(|n| *n <= total)
                    .ok_or_else(|| {
                        invalid(format!(
                            "insert_line {insert_line} is outside 0..={total} for {}",
                            tool_path(&rel)
                        ))
                    })?;
                let updated = insert_after(&text, after, insert_text);
                self.put(&rel, &abs, &updated).await?;
                Ok(format!(
                    "Inserted text into {} after line {after}.",
                    tool_path(&rel)
                ))
            }
            MemoryToolCommand::Delete { path } => {
                let (rel, abs) = self.abs(path).await?;
                let st = self.stat(&rel, &abs).await?;
                if st.kind != EntryKind::Dir {
                    self.store
                        .fs()
                        .remove(&abs)
                        .await
                        .map_err(|e| Error::fs("remove", &abs, e))?;
                    return Ok(format!("Deleted {}.", tool_path(&rel)));
                }
                let files = self.files_below(&rel).await;
                for file in &files {
                    let file_abs = format!("{}{file}", self.store.dir());
                    self.store
                        .fs()
                        .remove(&file_abs)
                        .await
                        .map_err(|e| Error::fs("remove", &file_abs, e))?;
                }
                Ok(format!(
                    "Deleted {} and the {} files in it.",
                    tool_path(&rel),
                    files.len()
                ))
            }
            MemoryToolCommand::Rename { old_path, new_path } => {
                let (old_rel, old_abs) = self.abs(old_path).await?;
                let (new_rel, new_abs) = self.abs(new_path).await?;
                let text = self.read_existing(&old_rel, &old_abs).await?;
                if self.store.path_exists(&new_abs).await? {
                    return Err(Error::new(
                        Code::AlreadyExists,
                        format!("{} already exists", tool_path(&new_rel)),
                    ));
                }
                let scope = scope_of(&new_rel);
                self.store.guard_secrets(scope, &text)?;
                self.store
                    .check_containment(scope, store_rel(&new_rel), &new_abs)
                    .await?;
                self.store.ensure_parent(&new_abs).await?;
                if self.store.fs().capabilities().rename {
                    self.store
                        .fs()
                        .rename(&old_abs, &new_abs)
                        .await
                        .map_err(|e| Error::fs("rename", &old_abs, e))?;
                } else {
                    self.store.check_bytes_intact(&old_abs, &text).await?;
                    self.store.write_atomic(&new_abs, &text).await?;
                    self.store
                        .fs()
                        .remove(&old_abs)
                        .await
                        .map_err(|e| Error::fs("remove", &old_abs, e))?;
                }
                Ok(format!(
                    "Renamed {} to {}.",
                    tool_path(&old_rel),
                    tool_path(&new_rel)
                ))
            }
        }
    }

    /// Regular files below a directory (relative to the memory directory), the library's own
    /// files left out; symlinked directories are not entered.
    async fn files_below(&self, rel: &str) -> Vec<String> {
        let mut out = Vec::new();
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
                    EntryKind::Dir => queue.push(child),
                    _ if out.len() < MAX_DELETE_FILES => out.push(child),
                    _ => {}
                }
            }
        }
        out
    }
}

/// The error for a tool path that does not exist.
fn missing(rel: &str) -> Error {
    Error::new(Code::NotFound, format!("{} does not exist", tool_path(rel)))
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
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn inserting_and_numbering() {
        assert_eq!(insert_after("a\nb\n", 0, "x"), "x\na\nb\n");
        assert_eq!(insert_after("a\nb\n", 1, "x"), "a\nx\nb\n");
        assert_eq!(insert_after("a\nb\n", 2, "x"), "a\nb\nx");
        assert_eq!(insert_after("a\nb", 2, "x\n"), "a\nb\nx\n");
        assert_eq!(insert_after("", 0, "x"), "x");
        assert_eq!(file_lines("a\nb\n"), ["a", "b"]);
        let view = numbered("/memories/a", "one\ntwo\nthree\n", Some([2, -1])).unwrap();
        assert_eq!(
            view,
            "Lines 2–3 of /memories/a (3 lines):\n     2\ttwo\n     3\tthree\n"
        );
        assert!(numbered("/memories/a", "one\n", Some([0, 1])).is_err());
        assert!(numbered("/memories/a", "one\n", Some([1, 2])).is_err());
        assert_eq!(
            numbered("/memories/a", "", None).unwrap(),
            "/memories/a is empty."
        );
    }
}
