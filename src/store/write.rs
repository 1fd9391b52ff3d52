//! Low-level write helpers: unique ids, atomic replace, parent directories, and the check that a
//! write stays inside the memory directory even through symlinks.

use super::deadline::fs_error;
use super::{Store, WriteMode};
use crate::error::{Code, Error, Result};
use crate::host::{Clock, EntryKind, FileSystem, Telemetry};
use crate::paths::{to_base36, PathStyle};
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

pub(crate) use crate::library_files::TEMP_MARK;

/// The parent directory of an absolute path (`/a/b.md` → `/a`; on Windows either separator,
/// `C:\m\team/a.md` → `C:\m\team`).
pub(crate) fn parent_dir(path: &str) -> String {
    PathStyle::of_dir(path).parent(path)
}

/// True when `path` is `root` or below it, by the path rules of `root` (Windows: either
/// separator, ASCII case ignored).
fn is_within(root: &str, path: &str) -> bool {
    PathStyle::of_dir(root).contains(root, path)
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// A fresh id for temp files and lock holders: the clock, a per-instance counter, and a
    /// per-process random hash, in base 36. No `rand` dependency.
    pub(crate) fn next_id(&self) -> String {
        let n = self.id_counter.get().wrapping_add(1);
        self.id_counter.set(n);
        let now = self.clock.now_ms().max(0.0) as u64;
        let salt = RandomState::new().hash_one((now, n, self as *const Self as usize));
        format!(
            "{}{}{}",
            to_base36(now),
            to_base36(n),
            to_base36(salt & 0xff_ffff)
        )
    }

    /// Refuse writes in `off` and `read-only` mode.
    pub(crate) fn check_writable(&self) -> Result<()> {
        match self.write_mode {
            WriteMode::Off | WriteMode::ReadOnly => Err(Error::new(
                Code::WriteForbidden,
                "the write mode forbids writing memory",
            )),
            WriteMode::Confirm | WriteMode::Auto => Ok(()),
        }
    }

    /// True when writes must become proposals.
    pub(crate) fn confirms_writes(&self) -> bool {
        self.write_mode == WriteMode::Confirm
    }

    /// Whether `path` exists (any kind). Errors other than "not found" are reported.
    pub(crate) async fn path_exists(&self, path: &str) -> Result<bool> {
        match self.bounded(self.fs.stat(path)).await {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(fs_error("stat", path, e)),
        }
    }

    /// A file's text, `None` when it does not exist.
    pub(crate) async fn read_optional(&self, path: &str) -> Result<Option<String>> {
        match self.bounded(self.fs.read_file(path)).await {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(fs_error("read", path, e)),
        }
    }

    /// Create the parent directory of `path`.
    pub(crate) async fn ensure_parent(&self, path: &str) -> Result<()> {
        self.mkdir_all(&parent_dir(path)).await
    }

    /// Create `dir` and its parents. `mkdir` is meant to be recursive; for hosts whose `mkdir`
    /// answers `ENOENT` for a missing parent, every ancestor is created in turn.
    pub(crate) async fn mkdir_all(&self, dir: &str) -> Result<()> {
        match self.bounded(self.fs.mkdir(dir)).await {
            Ok(()) => return Ok(()),
            Err(e) if !e.is_not_found() => return Err(fs_error("mkdir", dir, e)),
            Err(_) => {}
        }
        let style = PathStyle::of_dir(dir);
        let root = style.root(dir);
        let mut prefix = root.trim_end_matches(|c| style.is_sep(c)).to_owned();
        let rest = dir.get(root.len()..).unwrap_or("");
        for segment in rest.split(|c| style.is_sep(c)).filter(|s| !s.is_empty()) {
            prefix.push(style.sep());
            prefix.push_str(segment);
            // Ancestors may exist or be unreadable; only the final result counts.
            let _ = self.bounded(self.fs.mkdir(&prefix)).await;
        }
        self.bounded(self.fs.mkdir(dir))
            .await
            .map_err(|e| fs_error("mkdir", dir, e))
    }

    /// Replace `path` with `data` atomically (temp file + `rename`) when the host can rename;
    /// otherwise a plain write. A failed write removes its temp file and leaves `path` as it was.
    /// A host whose `writeFile` is atomic already (`atomic_write`, e.g. `nodeFs()`, which
    /// writes a temp file and renames it) gets one plain `writeFile`: one temp file and one
    /// rename per file, not two. Each host call is bounded by `host_call_timeout_ms`
    /// (→ `TIMEOUT`); a temp file a hung call leaves behind is swept later (see
    /// [`super::journal`]).
    pub(crate) async fn write_atomic(&self, path: &str, data: &str) -> Result<()> {
        let caps = self.fs.capabilities();
        if !caps.rename || caps.atomic_write {
            return self
                .bounded(self.fs.write_file(path, data))
                .await
                .map_err(|e| fs_error("write", path, e));
        }
        let tmp = format!("{path}{TEMP_MARK}{}", self.next_id());
        if let Err(e) = self.bounded(self.fs.write_file(&tmp, data)).await {
            let _ = self.bounded(self.fs.remove(&tmp)).await;
            return Err(fs_error("write", &tmp, e));
        }
        if let Err(e) = self.bounded(self.fs.rename(&tmp, path)).await {
            let _ = self.bounded(self.fs.remove(&tmp)).await;
            return Err(fs_error("rename", path, e));
        }
        Ok(())
    }

    /// With `realpath`, refuse a write whose parent directory (or existing target) resolves
    /// outside `root` through a symlink. Without `realpath` only the lexical checks of
    /// [`super::names::check_memory_file`] apply.
    pub(crate) async fn check_inside(&self, root: &str, path: &str) -> Result<()> {
        let caps = self.fs.capabilities();
        if !caps.realpath {
            return Ok(());
        }
        let root_trimmed = PathStyle::of_dir(root).trim_trailing_sep(root);
        let real_root = self
            .bounded(self.fs.realpath(&root_trimmed))
            .await
            .map_err(|e| Error::host(Code::PathUnverifiable, &root_trimmed, e))?;
        let parent = parent_dir(path);
        let real_parent = self
            .bounded(self.fs.realpath(&parent))
            .await
            .map_err(|e| Error::host(Code::PathUnverifiable, &parent, e))?;
        if !is_within(&real_root, &real_parent) {
            return Err(escape(path));
        }
        if caps.lstat {
            if let Ok(st) = self.bounded(self.fs.lstat(path)).await {
                if st.kind == EntryKind::Symlink {
                    let real = self.bounded(self.fs.realpath(path)).await.map_err(|e| {
                        let code = if e.has_code("ELOOP") {
                            Code::PathSymlinkLoop
                        } else if e.is_not_found() {
                            Code::PathDanglingSymlink
                        } else {
                            Code::PathUnverifiable
                        };
                        Error::host(code, path, e)
                    })?;
                    if !is_within(&real_root, &real) {
                        return Err(escape(path));
                    }
                }
            }
        }
        Ok(())
    }
}

fn escape(path: &str) -> Error {
    Error::new(
        Code::PathSymlinkEscape,
        format!("{path:?} resolves outside the memory directory through a symlink"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::future::block_on;
    use crate::host::FsCapabilities;
    use crate::store::{SaveInput, StoreConfig};
    use crate::test_host::{FixedClock, FsOp, HookedFs};
    use crate::{MemFs, NoTelemetry};

    /// The writes and renames of one save, and the files it leaves.
    fn one_save(atomic: bool) -> (Vec<String>, Vec<String>) {
        // A MemFs declaring `atomic_write` (or not), whose writes and renames are logged.
        let caps = FsCapabilities {
            rename: true,
            atomic_write: atomic,
            ..FsCapabilities::default()
        };
        let fs = HookedFs::new(MemFs::new(), caps);
        let store = Store::new(
            &fs,
            FixedClock(1.7e12),
            NoTelemetry,
            "/m/",
            WriteMode::Auto,
            StoreConfig::default(),
        );
        let input = SaveInput {
            name: "Role".into(),
            description: "Senior Go dev".into(),
            memory_type: "user".into(),
            body: "Body".into(),
            ..SaveInput::default()
        };
        assert!(block_on(store.save(input)).is_ok());
        let log = fs
            .calls_of(&[FsOp::WriteFile, FsOp::Rename])
            .into_iter()
            .map(|(op, path)| match op {
                FsOp::Rename => format!("rename {path}"),
                _ => format!("write {path}"),
            })
            .collect::<Vec<_>>();
        let mut files: Vec<String> = block_on(fs.inner.read_dir("/m/"))
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.name)
            .collect();
        files.sort();
        (log, files)
    }

    #[test]
    fn a_host_that_writes_atomically_gets_each_file_once() {
        let (log, files) = one_save(true);
        let memory_writes = |log: &[String]| {
            log.iter()
                .filter(|l| l.ends_with("/m/user_role.md") || l.ends_with("/m/MEMORY.md"))
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            memory_writes(&log),
            ["write /m/user_role.md", "write /m/MEMORY.md"]
        );
        assert!(!log.iter().any(|l| l.contains(TEMP_MARK)), "{log:?}");
        let (plain_log, plain_files) = one_save(false);
        assert_eq!(
            memory_writes(&plain_log),
            ["rename /m/user_role.md", "rename /m/MEMORY.md"]
        );
        assert!(plain_log.iter().any(|l| l.contains(TEMP_MARK)));
        // The same files either way.
        assert_eq!(files, plain_files);
        assert!(
            files.iter().any(|f| f == "user_role.md") && files.iter().any(|f| f == "MEMORY.md")
        );
    }

    #[test]
    fn helpers() {
        assert_eq!(parent_dir("/a/b.md"), "/a");
        assert_eq!(parent_dir("/b.md"), "/");
        assert!(is_within("/m", "/m"));
        assert!(is_within("/m/", "/m/x"));
        assert!(!is_within("/m", "/mx"));
        assert!(!is_within("/m", "/"));
    }
}
