//! [`WinFs`]: a filesystem double that behaves like Windows (NTFS through Node's `fs`), for
//! testing the Windows path rules on Linux:
//! - paths must be absolute Windows paths: a drive (`C:\`, `c:/`) or a UNC share
//!   (`\\server\share\`); a POSIX path such as `/m/a.md` is refused (`EINVAL`), so a path the
//!   library formed the POSIX way shows up as an error;
//! - `\` and `/` both separate, and `.`/`..` resolve, as Windows does;
//! - names are compared without case but keep the case they were created with: `readDir` and
//!   `realpath` answer in that case, `realpath` with `\` separators;
//! - symbolic links (`symlink`) are followed as by `MemFs`, which stores the tree underneath
//!   (keyed by the lower-cased path: `C:\Users\U\mem\a.md` is `/c:/users/u/mem/a.md`).

use memdir::host::{DirEntry, FileStat, FileSystem, FsCapabilities, HostResult};
use memdir::paths::win32_normalize;
use memdir::{HostError, MemFs};
use std::cell::RefCell;
use std::collections::HashMap;

/// A Windows-like filesystem over a [`MemFs`] (see the module docs).
#[derive(Default)]
pub struct WinFs {
    inner: MemFs,
    /// Lower-cased key of each path → the name of its last segment as first created (the
    /// root's key → the root as written, e.g. `C:\`).
    names: RefCell<HashMap<String, String>>,
}

fn einval(path: &str) -> HostError {
    HostError::new(
        Some("EINVAL"),
        format!("not an absolute Windows path: {path:?}"),
    )
}

impl WinFs {
    /// An empty filesystem.
    pub fn new() -> Self {
        Self::default()
    }

    /// The store's key of a Windows path, and its display segments (root first), or `EINVAL`.
    fn split(path: &str) -> HostResult<(String, Vec<String>)> {
        if path.contains('\0') {
            return Err(einval(path));
        }
        let normalized = win32_normalize(path);
        let b = normalized.as_bytes();
        let (root, rest) =
            if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\' {
                (
                    format!("{}:\\", (b[0] as char).to_ascii_uppercase()),
                    &normalized[3..],
                )
            } else if let Some(unc) = normalized.strip_prefix("\\\\") {
                let mut parts = unc.splitn(3, '\\');
                let server = parts.next().unwrap_or("");
                let share = parts.next().unwrap_or("");
                if server.is_empty() || share.is_empty() {
                    return Err(einval(path));
                }
                let rest_start = 2 + server.len() + 1 + share.len();
                let rest = normalized.get(rest_start..).unwrap_or("");
                (
                    format!("\\\\{server}\\{share}\\"),
                    rest.trim_start_matches('\\'),
                )
            } else {
                return Err(einval(path));
            };
        let mut segments = vec![root];
        segments.extend(
            rest.split('\\')
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
        let key = Self::key_of(&segments);
        Ok((key, segments))
    }

    fn key_of(segments: &[String]) -> String {
        let mut key = String::new();
        for (i, segment) in segments.iter().enumerate() {
            key.push('/');
            if i == 0 {
                // `C:\` → `c:`; `\\srv\share\` → `unc:srv:share`.
                let root = segment.trim_end_matches('\\');
                if let Some(unc) = root.strip_prefix("\\\\") {
                    key.push_str(&format!("unc:{}", unc.replace('\\', ":")).to_ascii_lowercase());
                } else {
                    key.push_str(&root.to_ascii_lowercase());
                }
            } else {
                key.push_str(&segment.to_lowercase());
            }
        }
        key
    }

    /// Remember the case of every segment of `path` not seen before; its key.
    fn record(&self, path: &str) -> HostResult<String> {
        let (key, segments) = Self::split(path)?;
        let mut names = self.names.borrow_mut();
        for end in 1..=segments.len() {
            names
                .entry(Self::key_of(&segments[..end]))
                .or_insert_with(|| segments[end - 1].clone());
        }
        Ok(key)
    }

    fn key(path: &str) -> HostResult<String> {
        Ok(Self::split(path)?.0)
    }

    /// The Windows path of a store key, in the case each segment was created with.
    fn display(&self, key: &str) -> String {
        let names = self.names.borrow();
        let mut out = String::new();
        let mut prefix = String::new();
        for (i, part) in key.split('/').skip(1).enumerate() {
            prefix.push('/');
            prefix.push_str(part);
            let name = names
                .get(&prefix)
                .cloned()
                .unwrap_or_else(|| part.to_owned());
            if i > 1 {
                out.push('\\');
            }
            out.push_str(&name);
        }
        out
    }

    /// Add a file (parents created), as a test set-up.
    pub fn insert_file(&self, path: &str, data: impl AsRef<[u8]>) {
        let key = self.record(path).expect("a Windows path");
        self.inner.insert_file(&key, data);
    }

    /// Make `path` a symbolic link to `target` (both Windows paths).
    pub fn symlink(&self, target: &str, path: &str) {
        let target = self.record(target).expect("a Windows path");
        let path = self.record(path).expect("a Windows path");
        self.inner.symlink(&target, &path);
    }

    /// Every file, as `(Windows path in its created case, contents)`, sorted.
    pub fn files(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .inner
            .snapshot()
            .into_iter()
            .map(|(key, data)| {
                (
                    self.display(&key),
                    String::from_utf8_lossy(&data).into_owned(),
                )
            })
            .collect();
        out.sort();
        out
    }

    /// A file's text by any spelling of its path, or `None`.
    pub fn text(&self, path: &str) -> Option<String> {
        let key = Self::key(path).ok()?;
        self.inner
            .snapshot()
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, data)| String::from_utf8_lossy(&data).into_owned())
    }
}

impl FileSystem for WinFs {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.inner.read_file(&Self::key(path)?).await
    }

    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        let key = self.record(path)?;
        self.inner.write_file(&key, data).await
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        let key = Self::key(path)?;
        let real = self.inner.realpath(&key).await?;
        let entries = self.inner.read_dir(&key).await?;
        let names = self.names.borrow();
        Ok(entries
            .into_iter()
            .map(|e| DirEntry {
                name: names
                    .get(&format!("{real}/{}", e.name))
                    .cloned()
                    .unwrap_or(e.name),
                kind: e.kind,
            })
            .collect())
    }

    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.inner.stat(&Self::key(path)?).await
    }

    async fn mkdir(&self, path: &str) -> HostResult<()> {
        let key = self.record(path)?;
        self.inner.mkdir(&key).await
    }

    async fn remove(&self, path: &str) -> HostResult<()> {
        self.inner.remove(&Self::key(path)?).await
    }

    fn capabilities(&self) -> FsCapabilities {
        self.inner.capabilities()
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        let from = Self::key(from)?;
        let to_key = self.record(to)?;
        self.inner.rename(&from, &to_key).await
    }

    async fn realpath(&self, path: &str) -> HostResult<String> {
        let real = self.inner.realpath(&Self::key(path)?).await?;
        Ok(self.display(&real))
    }

    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        self.inner.lstat(&Self::key(path)?).await
    }

    async fn append_file(&self, path: &str, data: &str) -> HostResult<()> {
        let key = self.record(path)?;
        self.inner.append_file(&key, data).await
    }

    async fn create_exclusive(&self, path: &str, data: &str) -> HostResult<bool> {
        let key = self.record(path)?;
        self.inner.create_exclusive(&key, data).await
    }

    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        self.inner.read_head(&Self::key(path)?, max_bytes).await
    }
}
