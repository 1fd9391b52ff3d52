//! A `std::fs`-backed `FileSystem` over real temporary directories, for native tests.

use memdir::host::{DirEntry, EntryKind, FileStat, FileSystem, FsCapabilities, HostResult};
use memdir::HostError;
use std::cell::Cell;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Map an io error to the host codes the library understands (Linux errno values).
pub fn host_error(e: &io::Error, path: &str) -> HostError {
    let code = match e.raw_os_error() {
        Some(2) => Some("ENOENT"),
        Some(13) | Some(1) => Some("EACCES"),
        Some(17) => Some("EEXIST"),
        Some(20) => Some("ENOTDIR"),
        Some(21) => Some("EISDIR"),
        Some(36) => Some("ENAMETOOLONG"),
        Some(40) => Some("ELOOP"),
        _ => match e.kind() {
            io::ErrorKind::NotFound => Some("ENOENT"),
            io::ErrorKind::PermissionDenied => Some("EACCES"),
            io::ErrorKind::AlreadyExists => Some("EEXIST"),
            io::ErrorKind::IsADirectory => Some("EISDIR"),
            io::ErrorKind::NotADirectory => Some("ENOTDIR"),
            _ => None,
        },
    };
    HostError::new(code, format!("{e}: {path}"))
}

fn kind_of(ft: fs::FileType) -> EntryKind {
    if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_dir() {
        EntryKind::Dir
    } else {
        EntryKind::File
    }
}

fn stat_of(meta: &fs::Metadata) -> FileStat {
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    FileStat {
        kind: kind_of(meta.file_type()),
        size: meta.len() as f64,
        mtime_ms,
    }
}

/// The real filesystem. `caps` says which optional methods the library may use; `bytes_read`
/// counts bytes returned by `read_file` and `read_head`.
pub struct StdFs {
    pub caps: FsCapabilities,
    pub bytes_read: Cell<usize>,
}

impl Default for StdFs {
    fn default() -> Self {
        Self::new()
    }
}

impl StdFs {
    /// Every optional capability except `lock`.
    pub fn new() -> Self {
        StdFs {
            caps: FsCapabilities {
                rename: true,
                realpath: true,
                lstat: true,
                append_file: true,
                create_exclusive: true,
                read_head: true,
                lock: false,
                atomic_write: false,
                // One `write_all` of a short line with `O_APPEND`: what Node's `appendFile` does.
                atomic_append: true,
            },
            bytes_read: Cell::new(0),
        }
    }

    /// Only the required methods.
    pub fn minimal() -> Self {
        Self::with_caps(FsCapabilities::default())
    }

    /// The optional methods `caps` names.
    pub fn with_caps(caps: FsCapabilities) -> Self {
        StdFs {
            caps,
            bytes_read: Cell::new(0),
        }
    }

    fn count(&self, n: usize) {
        self.bytes_read.set(self.bytes_read.get() + n);
    }
}

impl FileSystem for StdFs {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        let bytes = fs::read(path).map_err(|e| host_error(&e, path))?;
        self.count(bytes.len());
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        fs::write(path, data).map_err(|e| host_error(&e, path))
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        let mut out = Vec::new();
        for entry in fs::read_dir(path).map_err(|e| host_error(&e, path))? {
            let entry = entry.map_err(|e| host_error(&e, path))?;
            let ft = entry.file_type().map_err(|e| host_error(&e, path))?;
            out.push(DirEntry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind: kind_of(ft),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        fs::metadata(path)
            .map(|m| stat_of(&m))
            .map_err(|e| host_error(&e, path))
    }

    async fn mkdir(&self, path: &str) -> HostResult<()> {
        fs::create_dir_all(path).map_err(|e| host_error(&e, path))
    }

    async fn remove(&self, path: &str) -> HostResult<()> {
        fs::remove_file(path).map_err(|e| host_error(&e, path))
    }

    fn capabilities(&self) -> FsCapabilities {
        self.caps
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        fs::rename(from, to).map_err(|e| host_error(&e, to))
    }

    async fn realpath(&self, path: &str) -> HostResult<String> {
        fs::canonicalize(path)
            .map(|p| p.to_string_lossy().into_owned())
            .map_err(|e| host_error(&e, path))
    }

    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        fs::symlink_metadata(path)
            .map(|m| stat_of(&m))
            .map_err(|e| host_error(&e, path))
    }

    async fn append_file(&self, path: &str, data: &str) -> HostResult<()> {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| host_error(&e, path))?;
        f.write_all(data.as_bytes())
            .map_err(|e| host_error(&e, path))
    }

    async fn create_exclusive(&self, path: &str, data: &str) -> HostResult<bool> {
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut f) => {
                f.write_all(data.as_bytes())
                    .map_err(|e| host_error(&e, path))?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(host_error(&e, path)),
        }
    }

    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        let f = fs::File::open(path).map_err(|e| host_error(&e, path))?;
        let mut out = Vec::new();
        f.take(max_bytes as u64)
            .read_to_end(&mut out)
            .map_err(|e| host_error(&e, path))?;
        self.count(out.len());
        Ok(out)
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A unique directory under `std::env::temp_dir()`, removed (with its contents) on drop.
pub struct TempDir {
    pub path: PathBuf,
}

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!(
            "memdir-test-{}-{tag}-{n}-{nanos}",
            std::process::id()
        ));
        fs::create_dir_all(&path).unwrap();
        // Canonical, so realpath checks compare like with like (/tmp may be a symlink).
        TempDir {
            path: fs::canonicalize(&path).unwrap(),
        }
    }

    /// The directory as a memory dir string, ending with `/`.
    pub fn dir(&self) -> String {
        format!("{}/", self.path.display())
    }

    /// A path inside the directory, as a string.
    pub fn abs(&self, rel: &str) -> String {
        format!("{}{rel}", self.dir())
    }

    /// A path inside the directory.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    /// Write a file (parents created).
    pub fn write(&self, rel: &str, data: impl AsRef<[u8]>) {
        let p = self.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, data).unwrap();
    }

    /// Read a file as text.
    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.join(rel)).unwrap()
    }

    /// Whether a path exists (without following a final symlink).
    pub fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.join(rel)).is_ok()
    }

    /// Symlink `rel` → `target`.
    pub fn symlink(&self, target: impl AsRef<Path>, rel: &str) {
        let p = self.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, p).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}
