//! Read containment: a read stays inside the memory directory, as a write does.
//!
//! A path is read only when it is lexically below the directory and, with the host's `realpath`,
//! its real path (every symlink resolved) is the directory's real path or below it. A symlink
//! that leads out — to a credentials file, to `/usr`, to `/` — is treated as if it were not
//! there by the walks (scan, lint, the memory tool's listing) and refused with
//! `PATH_SYMLINK_ESCAPE` by the reads of a named file (`readIndex`, the memory tool's `view`);
//! recall's `surface` leaves such a file out. Links that stay inside keep working. The read
//! then goes to the resolved path, so a link swapped after the check is not followed.
//!
//! Without `realpath` (a host without symlinks, such as OPFS or `memoryFs`) only the lexical
//! check applies, and the walks are bounded by depth and count (see [`super::scan`]).

use super::Store;
use crate::error::{Code, Error, Result};
use crate::future::join;
use crate::host::{Clock, FieldValue, FileSystem, HostResult, Telemetry};
use crate::paths::PathStyle;

/// Telemetry event: reads that were refused or skipped because they lead outside the memory
/// directory (`operation`: `scan`, `list`, `read`; `count`). A scan that cannot resolve the
/// directory's own real path reads nothing and reports `count: 1`.
pub const EVENT_READ_OUTSIDE: &str = "memdir_read_outside";

/// The memory directory's real path, resolved once per operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReadRoot {
    /// The host has no `realpath`: lexical checks only.
    Lexical,
    /// The directory's real path, without a trailing `/` (`""` for `/`).
    Real(String),
    /// The directory does not exist: nothing below it can be read.
    Absent,
}

/// Where a read of one path goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReadTarget {
    /// Inside the directory: read this path (the real path when the host has `realpath`).
    Inside(String),
    /// Outside the directory, lexically or through a symlink.
    Outside,
    /// Nothing there (or a dangling link).
    Missing,
}

/// True when `path` is `root` or below it (`""` is `/`), by the path rules of `style`
/// (Windows: either separator, ASCII case ignored, as NTFS compares names).
fn within(style: PathStyle, root: &str, path: &str) -> bool {
    style.contains(root, path)
}

/// The [`ReadRoot`] a host's `realpath` of the directory (`trimmed`) answered. A host error
/// other than "missing" fails closed with `PATH_UNVERIFIABLE`.
fn root_from(style: PathStyle, trimmed: &str, answer: HostResult<String>) -> Result<ReadRoot> {
    match answer {
        Ok(real) => Ok(ReadRoot::Real(
            real.trim_end_matches(|c| style.is_sep(c)).to_owned(),
        )),
        Err(e) if e.is_not_found() || e.has_code("ENOTDIR") => Ok(ReadRoot::Absent),
        Err(e) => Err(Error::host(Code::PathUnverifiable, trimmed, e)),
    }
}

/// Where a read of `path` goes, by the host's `realpath` of it and the directory's real path.
/// A symlink loop is `PATH_SYMLINK_LOOP`; another host error is `PATH_UNVERIFIABLE`.
fn target_from(
    style: PathStyle,
    real_root: &str,
    path: &str,
    answer: HostResult<String>,
) -> Result<ReadTarget> {
    match answer {
        Ok(real) if within(style, real_root, &real) => Ok(ReadTarget::Inside(real)),
        Ok(_) => Ok(ReadTarget::Outside),
        Err(e) if e.is_not_found() || e.has_code("ENOTDIR") => Ok(ReadTarget::Missing),
        Err(e) if e.has_code("ELOOP") => Err(Error::host(Code::PathSymlinkLoop, path, e)),
        Err(e) => Err(Error::host(Code::PathUnverifiable, path, e)),
    }
}

/// The error for a read that would leave the memory directory.
pub(crate) fn read_escape(path: &str) -> Error {
    Error::new(
        Code::PathSymlinkEscape,
        format!("{path:?} resolves outside the memory directory through a symlink"),
    )
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// The directory's real path for the containment checks of one operation. A host error
    /// other than "missing" fails closed with `PATH_UNVERIFIABLE`.
    pub(crate) async fn read_root(&self) -> Result<ReadRoot> {
        if !self.fs.capabilities().realpath {
            return Ok(ReadRoot::Lexical);
        }
        let style = PathStyle::of_dir(&self.dir);
        let trimmed = style.trim_trailing_sep(&self.dir);
        root_from(style, &trimmed, self.fs.realpath(&trimmed).await)
    }

    /// Where a read of `path` goes, given the operation's [`ReadRoot`]. A symlink loop is
    /// `PATH_SYMLINK_LOOP`; another host error from `realpath` is `PATH_UNVERIFIABLE`.
    pub(crate) async fn resolve_read(&self, root: &ReadRoot, path: &str) -> Result<ReadTarget> {
        let style = PathStyle::of_dir(&self.dir);
        let lexical = style.normalize(path);
        if !style.is_absolute(&lexical) || !within(style, &self.dir, &lexical) {
            return Ok(ReadTarget::Outside);
        }
        let real_root = match root {
            ReadRoot::Lexical => return Ok(ReadTarget::Inside(lexical)),
            ReadRoot::Absent => return Ok(ReadTarget::Missing),
            ReadRoot::Real(real_root) => real_root,
        };
        target_from(style, real_root, path, self.fs.realpath(&lexical).await)
    }

    /// [`Store::read_root`] and [`Store::resolve_read`] of `path` together, the two real paths
    /// asked of the host at once (one wait instead of two); the same answers and errors, the
    /// directory's first.
    pub(crate) async fn read_root_and_target(&self, path: &str) -> Result<(ReadRoot, ReadTarget)> {
        let style = PathStyle::of_dir(&self.dir);
        let lexical = style.normalize(path);
        let inside = style.is_absolute(&lexical) && within(style, &self.dir, &lexical);
        if !inside || !self.fs.capabilities().realpath {
            let root = self.read_root().await?;
            let target = self.resolve_read(&root, path).await?;
            return Ok((root, target));
        }
        let trimmed = style.trim_trailing_sep(&self.dir);
        let (root, real) = join(self.fs.realpath(&trimmed), self.fs.realpath(&lexical)).await;
        let root = root_from(style, &trimmed, root)?;
        let target = match &root {
            ReadRoot::Real(real_root) => target_from(style, real_root, path, real)?,
            ReadRoot::Absent => ReadTarget::Missing,
            ReadRoot::Lexical => ReadTarget::Inside(lexical),
        };
        Ok((root, target))
    }

    /// The real path of `path` when it exists and lies inside the memory directory (every
    /// symlink resolved; without the host's `realpath`, the normalised path after the lexical
    /// check); `None` when nothing is there; `PATH_SYMLINK_ESCAPE` when it leads outside.
    ///
    /// ```
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, Code, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// fs.insert_file("/m/a.md", "a");
    /// fs.insert_file("/home/u/.aws/credentials", "secret");
    /// fs.symlink("/m/a.md", "/m/alias.md");
    /// fs.symlink("/home/u/.aws/credentials", "/m/creds.md");
    /// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// assert_eq!(block_on(store.contained_real_path("/m/alias.md")).unwrap().as_deref(), Some("/m/a.md"));
    /// assert_eq!(block_on(store.contained_real_path("/m/none.md")).unwrap(), None);
    /// let err = block_on(store.contained_real_path("/m/creds.md")).unwrap_err();
    /// assert_eq!(err.code, Code::PathSymlinkEscape);
    /// ```
    pub async fn contained_real_path(&self, path: &str) -> Result<Option<String>> {
        match self.read_root_and_target(path).await?.1 {
            ReadTarget::Inside(real) => Ok(Some(real)),
            ReadTarget::Missing => Ok(None),
            ReadTarget::Outside => {
                self.note_outside("read", 1);
                Err(read_escape(path))
            }
        }
    }

    /// Read a file of the memory directory, refusing one that leads outside it
    /// (`PATH_SYMLINK_ESCAPE`, see [`Store::contained_real_path`]); a missing file is
    /// `NOT_FOUND`; a host read failure is `HOST_FS` with the host's error as `cause`.
    ///
    /// ```
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, Code, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// fs.insert_file("/m/a.md", "body\n");
    /// fs.insert_file("/etc/passwd", "root:x:0:0\n");
    /// fs.symlink("/etc/passwd", "/m/p.md");
    /// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// assert_eq!(block_on(store.read_contained("/m/a.md")).unwrap(), "body\n");
    /// assert_eq!(block_on(store.read_contained("/m/p.md")).unwrap_err().code, Code::PathSymlinkEscape);
    /// assert_eq!(block_on(store.read_contained("/etc/passwd")).unwrap_err().code, Code::PathSymlinkEscape);
    /// ```
    pub async fn read_contained(&self, path: &str) -> Result<String> {
        match self.contained_real_path(path).await? {
            Some(real) => self
                .fs
                .read_file(&real)
                .await
                .map_err(|e| Error::fs("read", path, e)),
            None => Err(Error::new(
                Code::NotFound,
                format!("{path:?} does not exist"),
            )),
        }
    }

    /// Emit [`EVENT_READ_OUTSIDE`] when `count` reads of `operation` were refused or skipped.
    pub(crate) fn note_outside(&self, operation: &str, count: usize) {
        if count > 0 {
            self.telemetry.emit(
                EVENT_READ_OUTSIDE,
                &[
                    ("operation", FieldValue::Str(operation.to_owned())),
                    ("count", FieldValue::Num(count as f64)),
                ],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_is_by_segment() {
        let p = PathStyle::Posix;
        assert!(within(p, "/m", "/m"));
        assert!(within(p, "/m/", "/m/x"));
        assert!(!within(p, "/m", "/mx"));
        assert!(!within(p, "/m", "/"));
        assert!(within(p, "", "/anything"));
        assert!(!within(p, "/m", "/M/x"));
        let w = PathStyle::Win32;
        assert!(within(w, "C:\\m\\", "c:/M/x"));
        assert!(!within(w, "C:\\m", "C:\\mx"));
        assert!(within(w, "C:\\", "C:\\anything"));
    }
}
