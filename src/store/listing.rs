//! The whole directory as recall's index sees it: every memory file the scan's walk finds, with
//! its stat ([`Store::list_memory_files`], no file read), one path's state
//! ([`Store::probe_memory_path`]), and a file's head as the index reads it
//! ([`Store::read_memory_head`]).
//!
//! A head is the frontmatter, read from the first 30 lines exactly as the scan reads it (so a
//! memory's manifest line is the scan's), and the body after it up to [`INDEX_HEAD_BYTES`]. With
//! the host's `readHead` only that much is read (more only while the 30 frontmatter lines are
//! not complete, as the scan does); without it, the whole file.

use super::head::{first_lines, first_lines_of_bytes, lines_prefix_len};
use super::scan::{is_memory_file_name, Walked, SCAN_CHUNK};
use super::Store;
use crate::frontmatter::parse_frontmatter;
use crate::future::join;
use crate::host::{Clock, EntryKind, FileSystem, Telemetry};
use crate::types::{MemoryHeader, FRONTMATTER_MAX_LINES};

/// Files read (or stat'ed) concurrently per batch: the scan's.
pub const READ_CHUNK: usize = SCAN_CHUNK;

/// Most bytes of a memory file the index reads for ranking (frontmatter and body).
pub const INDEX_HEAD_BYTES: usize = 16 * 1024;

/// A memory file and its stat.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryFile {
    /// Path relative to the memory directory (`team/api.md`).
    pub rel: String,
    /// Absolute path (below the memory directory).
    pub path: String,
    /// The path to read it at: `path`, or its real path when the walk reached it through a
    /// symlink (the scan's containment).
    pub read: String,
    /// Size in bytes.
    pub size: f64,
    /// Modification time, ms since the epoch.
    pub mtime_ms: f64,
}

/// The whole directory as [`Store::list_memory_files`] sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryListing {
    /// Every memory file, in walk order, with its stat.
    pub files: Vec<MemoryFile>,
    /// Symbolic links the walk met. A change made behind a link (to the file or directory it
    /// leads to) is not a change in the memory directory, so a host watch cannot report it.
    pub links: usize,
}

/// What is at a path below the memory directory (see [`Store::probe_memory_path`]).
#[derive(Clone, Debug, PartialEq)]
pub enum PathState {
    /// A memory file (a regular `.md` file other than `MEMORY.md`).
    Memory(MemoryFile),
    /// A directory (or a link to one): what is below it is unknown.
    Dir,
    /// Nothing (or nothing that can be stat'ed).
    Missing,
    /// Something that is not a memory file (`MEMORY.md`, a temp file, a lock file …).
    Other,
}

/// True when the last component of `rel` names a memory file (`.md`, not `MEMORY.md`).
///
/// ```
/// use memdir::store::listing::is_memory_path;
/// assert!(is_memory_path("team/api.md"));
/// assert!(!is_memory_path("team/MEMORY.md"));
/// assert!(!is_memory_path("a.md.tmp-3"));
/// ```
pub fn is_memory_path(rel: &str) -> bool {
    is_memory_file_name(rel.rsplit('/').next().unwrap_or(rel))
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Every memory file [`Store::scan`] considers (the same walk), in walk order, each with its
    /// stat, and the number of symbolic links met; nothing is read. A directory that cannot be
    /// listed gives no files.
    ///
    /// ```
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// fs.insert_file("/m/a.md", "hello");
    /// fs.insert_file("/m/MEMORY.md", "- [A](a.md) — a\n");
    /// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// let listing = block_on(store.list_memory_files());
    /// let files = &listing.files;
    /// assert_eq!((files.len(), files[0].rel.as_str(), files[0].size), (1, "a.md", 5.0));
    /// assert_eq!(listing.links, 0);
    /// ```
    pub async fn list_memory_files(&self) -> MemoryListing {
        let walked = self.walk_memory_files().await;
        self.stat_memory_files(walked, &mut || {}).await
    }

    /// The walk of [`Store::list_memory_files`] (the directory listed, nothing stat'ed yet; see
    /// [`Store::stat_memory_files`]).
    pub(crate) async fn walk_memory_files(&self) -> Walked {
        let root = self.dir.clone();
        self.scan_candidates(&root).await
    }

    /// The stats of a walk's candidates, as [`Store::list_memory_files`] gives them: one host
    /// call per batch (`stat_listed`, or `stat_many` for a batch that is not one directory's
    /// files), one batch at a time, as the scan. `between` runs once per batch, after the batch
    /// is sent and before its answer is read: work of the caller's that fills the wait (a first
    /// recall decodes its cache there).
    pub(crate) async fn stat_memory_files(
        &self,
        walked: Walked,
        between: &mut dyn FnMut(),
    ) -> MemoryListing {
        let root = &self.dir;
        let mut files = Vec::with_capacity(walked.candidates.len());
        for chunk in walked.candidates.chunks(SCAN_CHUNK) {
            // `join` polls the stats first: the host has the batch before `between` runs.
            let (stats, ()) = join(walked.stat(&self.fs, chunk), async { between() }).await;
            for (c, st) in chunk.iter().zip(stats) {
                let Some(st) = st.filter(|s| s.kind == EntryKind::File) else {
                    continue;
                };
                let rel = walked.rel(c);
                let mut path = String::with_capacity(root.len() + rel.len());
                path.push_str(root);
                path.push_str(&rel);
                files.push(MemoryFile {
                    rel,
                    path,
                    read: walked.read(c),
                    size: st.size,
                    mtime_ms: st.mtime_ms,
                });
            }
        }
        MemoryListing {
            files,
            links: walked.links,
        }
    }

    /// What is at `rel` (relative to the memory directory) now: one `lstat` (a `stat` on hosts
    /// without it). A symbolic link reads as [`PathState::Dir`]: only the scan's walk may
    /// decide whether what it leads to is inside the directory.
    ///
    /// ```
    /// use memdir::store::listing::PathState;
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// fs.insert_file("/m/team/a.md", "hi");
    /// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// assert_eq!(block_on(store.probe_memory_path("team")), PathState::Dir);
    /// assert_eq!(block_on(store.probe_memory_path("b.md")), PathState::Missing);
    /// assert!(matches!(block_on(store.probe_memory_path("team/a.md")), PathState::Memory(_)));
    /// ```
    pub async fn probe_memory_path(&self, rel: &str) -> PathState {
        let path = format!("{}{rel}", self.dir);
        let st = if self.fs.capabilities().lstat {
            self.fs.lstat(&path).await
        } else {
            self.fs.stat(&path).await
        };
        match st {
            Err(_) => PathState::Missing,
            // The daily logs are not memories, whatever changes below `logs/`.
            Ok(_) if super::names::is_log_path(rel) => PathState::Other,
            Ok(st) if st.kind != EntryKind::File => PathState::Dir,
            Ok(st) if is_memory_path(rel) => PathState::Memory(MemoryFile {
                rel: rel.to_owned(),
                read: path.clone(),
                path,
                size: st.size,
                mtime_ms: st.mtime_ms,
            }),
            Ok(_) => PathState::Other,
        }
    }

    /// The header of `file` with, as `body_head`, the body up to [`INDEX_HEAD_BYTES`]; `None`
    /// when the file cannot be read. The `name`, `description` and `type` are the scan's.
    ///
    /// ```
    /// use memdir::store::listing::MemoryFile;
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// let body: String = (0..40).map(|i| format!("line {i}\n")).collect();
    /// fs.insert_file("/m/a.md", format!("---\ndescription: d\n---\n{body}"));
    /// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// let file = MemoryFile { rel: "a.md".into(), path: "/m/a.md".into(), read: "/m/a.md".into(), size: 0.0, mtime_ms: 1.0 };
    /// let header = block_on(store.read_memory_head(&file)).unwrap();
    /// assert_eq!(header.description.as_deref(), Some("d"));
    /// assert!(header.body_head.contains("line 39")); // past the scan's 30 lines
    /// ```
    pub async fn read_memory_head(&self, file: &MemoryFile) -> Option<MemoryHeader> {
        let bytes = if self.fs.capabilities().read_head {
            self.read_index_bytes(&file.read, file.size).await?
        } else {
            self.fs.read_file(&file.read).await.ok()?.into_bytes()
        };
        // The frontmatter from the first 30 lines, as the scan reads it.
        let lines = first_lines_of_bytes(&bytes, FRONTMATTER_MAX_LINES);
        let parsed = parse_frontmatter(&lines);
        let body_start = lines.len() - parsed.body.len();
        // The same normalisation over the whole head (a prefix of it is `lines`), then the body
        // after the frontmatter, up to the cap.
        let keep = lines_prefix_len(&bytes, FRONTMATTER_MAX_LINES)
            .unwrap_or(0)
            .max(INDEX_HEAD_BYTES)
            .min(bytes.len());
        let head = first_lines(
            &String::from_utf8_lossy(bytes.get(..keep).unwrap_or(&bytes)),
            usize::MAX,
        );
        let mut body = head.get(body_start..).unwrap_or_default().to_owned();
        if body.len() > INDEX_HEAD_BYTES {
            let mut end = INDEX_HEAD_BYTES;
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            body.truncate(end);
        }
        Some(MemoryHeader {
            filename: file.rel.clone(),
            file_path: file.path.clone(),
            mtime_ms: file.mtime_ms,
            description: parsed.header.description,
            memory_type: parsed.header.memory_type,
            name: parsed.header.name,
            body_head: body,
        })
    }

    /// The first [`INDEX_HEAD_BYTES`] of a file through `readHead`, more (×4 up to the scan's
    /// [`HEAD_MAX_BYTES`]) while its first 30 lines are not complete.
    async fn read_index_bytes(&self, path: &str, size: f64) -> Option<Vec<u8>> {
        self.read_head_growing(path, size, INDEX_HEAD_BYTES).await
    }
}

#[cfg(test)]
mod tests {
    use crate::future::block_on;
    use crate::host::FsCapabilities;
    use crate::store::{Store, StoreConfig, WriteMode};
    use crate::test_host::{FixedClock, FsOp, HookedFs};
    use crate::{MemFs, NoTelemetry};

    #[test]
    fn the_work_between_runs_once_a_batch_after_the_batch_is_sent() {
        let inner = MemFs::new();
        for i in 0..150 {
            inner.insert_file(&format!("/m/note_{i:03}.md"), "x");
        }
        inner.insert_file("/m/MEMORY.md", "");
        let store = Store::new(
            HookedFs::new(inner, FsCapabilities::default()),
            FixedClock(1.7e12),
            NoTelemetry,
            "/m/",
            WriteMode::Auto,
            StoreConfig::default(),
        );
        let walked = block_on(store.walk_memory_files());
        assert_eq!(walked.stat_batches(), 3);
        let stats = || store.fs.count(&[FsOp::Stat]);
        let before = stats();
        let mut seen = Vec::new();
        let listing = block_on(store.stat_memory_files(walked, &mut || {
            seen.push(stats() - before);
        }));
        assert_eq!(seen, [64, 128, 150]);
        assert_eq!(listing, block_on(store.list_memory_files()));
        assert_eq!(listing.files.len(), 150);
        assert_eq!(
            listing.files[7].path,
            format!("/m/{}", listing.files[7].rel)
        );
    }
}
