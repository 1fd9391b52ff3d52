//! The memory scan and the manifest.
//!
//! Walk: breadth-first over `read_dir`. Containment (see [`super::contain`]): with the host's
//! `realpath`, every directory and every symlink is resolved, and one whose real path is
//! outside the memory directory's real path is neither entered nor read (a link to a
//! credentials file, to `/usr`, to `/`), while links that stay inside are followed; each real
//! directory is entered once, which ends symlink loops (and lists a directory reached through
//! two names once). Plain files of a directory inside are inside (`readDir` reports links as
//! links), so they cost no extra call. Without `realpath` only lexical checks apply.
//!
//! Bounds, always: at most [`MAX_SCAN_DEPTH`] levels, [`MAX_SCAN_DIRS`] directories and
//! [`MAX_SCAN_ENTRIES`] directory entries. Past a bound the walk goes no further, the scan
//! returns what it found, and the telemetry event [`EVENT_SCAN_CAPPED`] names the bound;
//! skipped outside links are counted in `memdir_read_outside`. Never an error.
//!
//! Reading: `stat` every candidate (follows symlinks; anything not a regular file is dropped),
//! order by modification time, then read only the newest until 200 headers are in (the
//! reference reads every file and then keeps 200: the result is the same). Each read takes, with
//! `readHead`, only the first [`HEAD_START_BYTES`] bytes, growing ×4 up to [`HEAD_MAX_BYTES`]
//! while 30 lines are not complete; without it, the whole file. A line cut at
//! [`HEAD_MAX_BYTES`] is kept as far as read (the reference reads whole files below 10 MiB).

use super::contain::{ReadRoot, ReadTarget};
use super::head::{first_lines_of_bytes, frontmatter_fields, lines_prefix_len};
use super::names::is_log_path;
use super::Store;
use crate::error::Result;
use crate::frontmatter::parse_frontmatter;
use crate::future::join_all;
use crate::host::listing::Listing;
use crate::host::{Clock, EntryKind, FieldValue, FileStat, FileSystem, Telemetry};
use crate::manifest::format_manifest;
use crate::str_map::StrMap;
use crate::types::{MemoryHeader, ENTRYPOINT_NAME, FRONTMATTER_MAX_LINES, MAX_MEMORY_FILES};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;

/// Files read concurrently per batch.
pub const SCAN_CHUNK: usize = 64;
/// Deepest directory level entered (the memory directory is level 0); deeper directories are
/// not listed and [`EVENT_SCAN_CAPPED`] says so.
pub const MAX_SCAN_DEPTH: usize = 16;
/// Most directories a scan lists; further directories are not listed and [`EVENT_SCAN_CAPPED`]
/// says so.
pub const MAX_SCAN_DIRS: usize = 4096;
/// Most directory entries a scan looks at; past it the walk stops, the files found so far are
/// read, and [`EVENT_SCAN_CAPPED`] says so.
pub const MAX_SCAN_ENTRIES: usize = 100_000;
/// Telemetry event: a scan reached one of its bounds (`cap`: `depth`, `dirs` or `entries`;
/// `limit`; `dirs_listed`; `entries_seen`). Emitted once per bound and scan; the scan succeeds
/// with what it found.
pub const EVENT_SCAN_CAPPED: &str = "memdir_scan_capped";
/// First `readHead` size, in bytes.
pub const HEAD_START_BYTES: usize = 8 * 1024;
/// Largest `readHead` size, in bytes.
pub const HEAD_MAX_BYTES: usize = 1024 * 1024;

/// The newest headers of a scan and how many memory files there are in all
/// ([`Store::scan_page`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanPage {
    /// Newest first, at most the limit asked for (fewer when some file cannot be read).
    pub headers: Vec<MemoryHeader>,
    /// Memory files found (regular `.md` files below the directory, logs and indexes excluded).
    pub total: usize,
}

/// A directory the walk listed: its path (ending with `/`), its path relative to the memory
/// directory (empty, or ending with `/`), and its listing.
pub(crate) struct ListedDir {
    abs: String,
    rel: String,
    listing: Listing,
}

/// A candidate memory file: an entry of a listed directory (by position: no string is built
/// for it until it is read), and its real path when the walk reached it through a symbolic
/// link (it is read there).
pub(crate) struct Candidate {
    dir: u32,
    entry: u32,
    real: Option<String>,
}

/// What a walk found: the candidates in walk order, the directories whose entries they are,
/// and how many symbolic links were among the entries it looked at (a change behind a link is
/// not a change in the directory, so a host watch cannot report it).
pub(crate) struct Walked {
    pub(super) candidates: Vec<Candidate>,
    dirs: Vec<ListedDir>,
    pub(super) links: usize,
}

impl Walked {
    /// How many batches (one host call each) stat its candidates (at least one).
    pub(crate) fn stat_batches(&self) -> usize {
        self.candidates.len().div_ceil(SCAN_CHUNK).max(1)
    }

    /// The directory and name of `candidate` (always there: a candidate's directory is listed
    /// before it).
    fn place(&self, candidate: &Candidate) -> Option<(&ListedDir, &str)> {
        let dir = self.dirs.get(candidate.dir as usize)?;
        let (_, name) = dir.listing.entry(candidate.entry as usize)?;
        Some((dir, name))
    }

    /// `candidate`'s path relative to the memory directory (`team/a.md`).
    pub(super) fn rel(&self, candidate: &Candidate) -> String {
        self.place(candidate)
            .map(|(dir, name)| joined(&dir.rel, name))
            .unwrap_or_default()
    }

    /// The path `candidate` is stat'ed and read at: its real path when reached through a link,
    /// else its directory's path and its name.
    pub(super) fn read(&self, candidate: &Candidate) -> String {
        match &candidate.real {
            Some(real) => real.clone(),
            None => self
                .place(candidate)
                .map(|(dir, name)| joined(&dir.abs, name))
                .unwrap_or_default(),
        }
    }

    /// The stats of `chunk` (candidates of this walk), in order, in one host call: by position
    /// ([`FileSystem::stat_listed`]) when they are all plain entries of one directory (a
    /// directory's files follow one another in walk order), else by path.
    pub(super) async fn stat<F: FileSystem>(
        &self,
        fs: &F,
        chunk: &[Candidate],
    ) -> Vec<Option<FileStat>> {
        let dir = chunk.first().map_or(0, |c| c.dir);
        let listed = chunk.iter().all(|c| c.real.is_none() && c.dir == dir);
        match self.dirs.get(dir as usize).filter(|_| listed) {
            Some(dir) => {
                let entries: Vec<u32> = chunk.iter().map(|c| c.entry).collect();
                fs.stat_listed(&dir.abs, &dir.listing, &entries).await
            }
            None => {
                let paths: Vec<String> = chunk.iter().map(|c| self.read(c)).collect();
                let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                fs.stat_many(&paths).await
            }
        }
    }
}

/// A candidate that is a regular file (by its place in the walk's list), with its stat: no
/// string is copied for the many files that are only stat'ed.
#[derive(Clone, Copy)]
struct StatedFile {
    at: usize,
    stat: FileStat,
}

/// What a walk saw, for its bounds and telemetry.
#[derive(Default)]
struct Walk {
    /// Directories listed.
    dirs: usize,
    /// Directory entries looked at.
    entries: usize,
    /// Links and directories skipped because they lead outside.
    outside: usize,
    /// Symbolic links met (followed or not).
    links: usize,
    /// Caps already reported.
    reported: Vec<&'static str>,
}

impl Walk {
    /// Report a cap once per walk with [`EVENT_SCAN_CAPPED`].
    fn capped<F: FileSystem, C: Clock, T: Telemetry>(
        &mut self,
        store: &Store<F, C, T>,
        cap: &'static str,
        limit: usize,
    ) {
        if self.reported.contains(&cap) {
            return;
        }
        self.reported.push(cap);
        store.telemetry.emit(
            EVENT_SCAN_CAPPED,
            &[
                ("cap", FieldValue::Str(cap.to_owned())),
                ("limit", FieldValue::Num(limit as f64)),
                ("dirs_listed", FieldValue::Num(self.dirs as f64)),
                ("entries_seen", FieldValue::Num(self.entries as f64)),
            ],
        );
    }
}

struct PendingDir {
    abs: String,
    rel: String,
    depth: usize,
}

/// A directory entry name a well-behaved host can return.
fn plausible_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.bytes().any(|b| b == b'/' || b == 0)
}

/// `a` then `b`, in one allocation (cheaper than `format!` in the walk's per-entry loop).
fn joined(a: &str, b: &str) -> String {
    let mut out = String::with_capacity(a.len() + b.len());
    out.push_str(a);
    out.push_str(b);
    out
}

pub(super) fn is_memory_file_name(name: &str) -> bool {
    name.ends_with(".md") && name != ENTRYPOINT_NAME
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// Headers of the memory files, newest first, at most 200: every `.md`
    /// file below the directory (case-sensitive suffix, hidden files and subdirectories such as
    /// `team/` included, every `MEMORY.md` and the daily logs in `logs/` excluded: a log is not a
    /// memory, and the reference lists it only by accident), frontmatter read from each
    /// file's first 30 lines. A file that cannot be read is dropped; a directory that cannot be
    /// listed gives `[]`.
    pub async fn scan(&self) -> Result<Vec<MemoryHeader>> {
        Ok(self.scan_page(MAX_MEMORY_FILES).await?.headers)
    }

    /// [`Store::scan`] with another limit: the newest `limit` headers (at least 1, at most
    /// [`MAX_SCAN_ENTRIES`]) and how many memory files there are in all, so a listing can say
    /// how many it left out. Only the headers returned are read; the others are stat'ed.
    ///
    /// ```
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// for i in 0..3 { fs.insert_file(&format!("/m/{i}.md"), "---\ndescription: d\n---\n"); }
    /// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// let page = block_on(store.scan_page(2)).unwrap();
    /// assert_eq!((page.headers.len(), page.total), (2, 3));
    /// ```
    pub async fn scan_page(&self, limit: usize) -> Result<ScanPage> {
        self.scan_walk(limit, false, true).await
    }

    /// [`Store::scan`] with the daily logs among the files, as consolidation shows them to the
    /// model (it reads the recent log days).
    pub(crate) async fn scan_with_logs(&self) -> Result<Vec<MemoryHeader>> {
        Ok(self.scan_walk(MAX_MEMORY_FILES, true, false).await?.headers)
    }

    /// The scan; `with_body` fills each header's `body_head` (the manifest and consolidation do
    /// not read it, so its text is neither decoded nor copied).
    async fn scan_walk(&self, limit: usize, with_logs: bool, with_body: bool) -> Result<ScanPage> {
        let limit = limit.clamp(1, MAX_SCAN_ENTRIES);
        let root = self.dir.clone();
        let walked = self.walk_candidates(&root, with_logs).await;
        // Only the newest `limit` are kept, so stat everything (cheap), pick the newest, and
        // read and parse heads newest first until `limit` are in: the same headers in the same
        // order as reading every file, for a fraction of the reads.
        let mut files = Vec::with_capacity(walked.candidates.len());
        // One host call per batch (`stat_listed`), the batch's stats in flight together.
        for (n, chunk) in walked.candidates.chunks(SCAN_CHUNK).enumerate() {
            let stats = walked.stat(&self.fs, chunk).await;
            let first = n * SCAN_CHUNK;
            files.extend(stats.into_iter().enumerate().filter_map(|(i, stat)| {
                let stat = stat.filter(|s| s.kind == EntryKind::File)?;
                Some(StatedFile {
                    at: first + i,
                    stat,
                })
            }));
        }
        let total = files.len();
        let mut headers = Vec::with_capacity(limit.min(files.len()));
        let mut order = newest(&files, limit);
        let mut next = 0;
        while headers.len() < limit {
            // A read failed: the order past the newest `limit`.
            if next == order.len() && order.len() < files.len() {
                order = newest(&files, usize::MAX);
            }
            let end = (next + (limit - headers.len()).min(SCAN_CHUNK)).min(order.len());
            let batch: Vec<_> = order
                .get(next..end)
                .unwrap_or_default()
                .iter()
                .filter_map(|file| Some((walked.candidates.get(file.at)?, file.stat)))
                .collect();
            next = end;
            if batch.is_empty() {
                break;
            }
            // A `dyn` future: the reads are a function of their own, which the engine compiles
            // (and optimises once hot) apart from the rest of the scan.
            let read: Pin<Box<dyn Future<Output = Vec<MemoryHeader>> + '_>> =
                Box::pin(self.read_headers(&root, &walked, &batch, with_body));
            headers.extend(read.await);
        }
        Ok(ScanPage { headers, total })
    }

    /// The headers of a batch, in order, an unreadable file left out. Through `readHead`: the
    /// first [`HEAD_START_BYTES`] of every file in one host call, then more of the few whose 30
    /// lines are not complete (4 times as much, up to [`HEAD_MAX_BYTES`], in one call per
    /// round, as [`Store::read_head_growing`] grows a single read); without it, whole files.
    async fn read_headers(
        &self,
        root: &str,
        walked: &Walked,
        batch: &[(&Candidate, FileStat)],
        with_body: bool,
    ) -> Vec<MemoryHeader> {
        let paths: Vec<String> = batch.iter().map(|(c, _)| walked.read(c)).collect();
        let mut heads = vec![None; batch.len()];
        // Every head, then again 4 times longer those whose 30 lines are not complete.
        let read_head = self.fs.capabilities().read_head;
        let mut want = HEAD_START_BYTES;
        let mut reading: Vec<usize> = (0..batch.len()).collect();
        while !reading.is_empty() {
            let asks: Vec<(&str, usize)> = reading
                .iter()
                .filter_map(|&i| {
                    let (_, stat) = batch.get(i)?;
                    Some((paths.get(i)?.as_str(), head_ask(want, stat.size)))
                })
                .collect();
            let reads = if read_head {
                self.fs.read_head_many(&asks).await
            } else {
                // Whole files: complete at once. Behind a `dyn` future: a host without
                // `readHead` is rare, and this way is not compiled into the usual one.
                want = usize::MAX;
                let reads = asks.iter().map(|&(path, _)| async move {
                    Some(self.fs.read_file(path).await.ok()?.into_bytes())
                });
                let whole: Pin<Box<dyn Future<Output = _> + '_>> =
                    Box::pin(join_all(reads.collect()));
                whole.await
            };
            let mut longer = Vec::new();
            for (i, bytes) in reading.into_iter().zip(reads) {
                let size = batch.get(i).map_or(0.0, |(_, stat)| stat.size);
                if bytes
                    .as_deref()
                    .is_some_and(|b| !head_complete(b, want, size))
                {
                    longer.push(i);
                }
                if let Some(slot) = heads.get_mut(i) {
                    *slot = bytes;
                }
            }
            reading = longer;
            want = want.saturating_mul(4).min(HEAD_MAX_BYTES);
        }
        batch
            .iter()
            .zip(heads)
            .filter_map(|(&(candidate, stat), head)| {
                let rel = walked.rel(candidate);
                Some(header_of(root, rel, stat, &head?, with_body))
            })
            .collect()
    }

    /// The manifest of [`Store::scan`]: one line per memory.
    pub async fn manifest(&self) -> Result<String> {
        let page = self.scan_walk(MAX_MEMORY_FILES, false, false).await?;
        Ok(format_manifest(&page.headers))
    }

    /// Candidate memory files, in walk order (see the module docs for the bounds).
    pub(super) async fn scan_candidates(&self, root: &str) -> Walked {
        self.walk_candidates(root, false).await
    }

    /// The walk of [`Store::scan_candidates`]; `with_logs` enters the daily logs' `logs/` too.
    async fn walk_candidates(&self, root: &str, with_logs: bool) -> Walked {
        let mut walked = Walked {
            candidates: Vec::new(),
            dirs: Vec::new(),
            links: 0,
        };
        let read_root = match self.read_root().await {
            Ok(ReadRoot::Absent) => return walked,
            Ok(read_root) => read_root,
            // The directory's real path cannot be told: nothing below it is read.
            Err(_) => {
                self.note_outside("scan", 1);
                return walked;
            }
        };
        let mut visited: StrMap<()> = StrMap::new();
        if let ReadRoot::Real(real) = &read_root {
            visited.insert(real.clone(), ());
        }
        let mut queue = VecDeque::from([PendingDir {
            abs: root.to_owned(),
            rel: String::new(),
            depth: 0,
        }]);
        let mut walk = Walk::default();
        let out = &mut walked.candidates;
        'walk: while let Some(dir) = queue.pop_front() {
            walk.dirs += 1;
            let listing = match self.fs.read_dir_listing(&dir.abs).await {
                Ok(listing) => listing,
                Err(_) => continue,
            };
            // The candidates below name this directory by its place in `dirs`.
            let at = u32::try_from(walked.dirs.len()).unwrap_or(u32::MAX);
            let mut capped = false;
            for (i, (entry_kind, name)) in listing.iter().enumerate() {
                if walk.entries >= MAX_SCAN_ENTRIES {
                    walk.capped(self, "entries", MAX_SCAN_ENTRIES);
                    capped = true;
                    break;
                }
                walk.entries += 1;
                if !plausible_name(name)
                    || (entry_kind == EntryKind::File && !is_memory_file_name(name))
                {
                    continue;
                }
                let entry = u32::try_from(i).unwrap_or(u32::MAX);
                // A plain file of a directory inside is inside: no string is built for it now.
                if entry_kind == EntryKind::File {
                    out.push(Candidate {
                        dir: at,
                        entry,
                        real: None,
                    });
                    continue;
                }
                // The daily logs (`logs/`, any case) are not memories.
                if !with_logs && dir.depth == 0 && is_log_path(name) {
                    continue;
                }
                // A link or a directory is resolved (directories to enter each real directory
                // once, which ends loops).
                if entry_kind == EntryKind::Symlink {
                    walk.links += 1;
                }
                let abs = joined(&dir.abs, name);
                let real = match self.resolve_read(&read_root, &abs).await {
                    Ok(ReadTarget::Inside(real)) => real,
                    Ok(ReadTarget::Outside) => {
                        walk.outside += 1;
                        continue;
                    }
                    // Dangling, looping or unverifiable: not read.
                    Ok(ReadTarget::Missing) | Err(_) => continue,
                };
                let kind = match entry_kind {
                    EntryKind::Symlink => match self.fs.stat(&real).await {
                        Ok(st) => st.kind,
                        Err(_) => continue,
                    },
                    kind => kind,
                };
                match kind {
                    // A link's name is checked here.
                    EntryKind::File if is_memory_file_name(name) => {
                        out.push(Candidate {
                            dir: at,
                            entry,
                            real: Some(real),
                        });
                    }
                    EntryKind::Dir => {
                        if read_root != ReadRoot::Lexical && visited.insert(real, ()).is_some() {
                            continue;
                        }
                        if dir.depth >= MAX_SCAN_DEPTH {
                            walk.capped(self, "depth", MAX_SCAN_DEPTH);
                            continue;
                        }
                        if walk.dirs + queue.len() >= MAX_SCAN_DIRS {
                            walk.capped(self, "dirs", MAX_SCAN_DIRS);
                            continue;
                        }
                        queue.push_back(PendingDir {
                            abs: format!("{abs}/"),
                            rel: format!("{}{name}/", dir.rel),
                            depth: dir.depth + 1,
                        });
                    }
                    _ => {}
                }
            }
            walked.dirs.push(ListedDir {
                abs: dir.abs,
                rel: dir.rel,
                listing,
            });
            if capped {
                break 'walk;
            }
        }
        self.note_outside("scan", walk.outside);
        walked.links = walk.links;
        walked
    }

    /// The first `start` bytes of a file through `readHead`, more (×4 up to
    /// [`HEAD_MAX_BYTES`]) while its first 30 lines are not complete.
    pub(super) async fn read_head_growing(
        &self,
        path: &str,
        size: f64,
        start: usize,
    ) -> Option<Vec<u8>> {
        let mut want = start;
        loop {
            let bytes = self.fs.read_head(path, want).await.ok()?;
            if head_complete(&bytes, want, size) {
                return Some(bytes);
            }
            want = want.saturating_mul(4).min(HEAD_MAX_BYTES);
        }
    }
}

/// How many bytes to ask of a file whose stat said `size` in a round of reads of `want`: no
/// more than the stat said, so a file shorter than `want` is read in one read (a host reading
/// "until the buffer is full or the file ends", as `nodeFs` does for network filesystems'
/// short reads, needs a second read to see the end otherwise). A file that grew after its stat
/// is read as long as the stat saw it. A size of 0 (an empty file, or a host that did not say)
/// asks `want`.
pub(crate) fn head_ask(want: usize, size: f64) -> usize {
    if size >= 1.0 && size < want as f64 {
        size as usize
    } else {
        want
    }
}

/// Whether a head read of `want` bytes of a file of `size` bytes holds all the scan needs: the
/// file's first 30 lines, or all of the file, or [`HEAD_MAX_BYTES`].
fn head_complete(bytes: &[u8], want: usize, size: f64) -> bool {
    // The cheap tests first: most files are shorter than the first read.
    bytes.len() < want
        || bytes.len() as f64 >= size
        || want >= HEAD_MAX_BYTES
        || lines_prefix_len(bytes, FRONTMATTER_MAX_LINES).is_some()
}

/// The header of `candidate` from the first 30 lines of `head` (the start of its bytes), with
/// the body within them when `with_body`.
fn header_of(
    root: &str,
    rel: String,
    stat: FileStat,
    head: &[u8],
    with_body: bool,
) -> MemoryHeader {
    let (fields, body_head) = if with_body {
        let parsed = parse_frontmatter(&first_lines_of_bytes(head, FRONTMATTER_MAX_LINES));
        (parsed.header, parsed.body)
    } else {
        (
            frontmatter_fields(head, FRONTMATTER_MAX_LINES),
            String::new(),
        )
    };
    MemoryHeader {
        file_path: joined(root, &rel),
        filename: rel,
        mtime_ms: stat.mtime_ms,
        description: fields.description,
        memory_type: fields.memory_type,
        name: fields.name,
        body_head,
    }
}

/// A file's time as the scan orders files: newest first, a time that is not a number as the
/// oldest.
fn time_key(file: &StatedFile) -> f64 {
    if file.stat.mtime_ms.is_nan() {
        f64::NEG_INFINITY
    } else {
        file.stat.mtime_ms
    }
}

/// The first `k` of `files` newest first (equal times in `files`' order): a scan keeps 200 of
/// thousands, so a pass keeps the newest `k` in order instead of ordering them all.
fn newest(files: &[StatedFile], k: usize) -> Vec<StatedFile> {
    let mut best: Vec<StatedFile> = Vec::with_capacity(k.min(files.len()) + 1);
    if k >= files.len() {
        best.extend_from_slice(files);
        // Stable: equal times keep walk order.
        crate::sort::sort_by(&mut best, |a, b| {
            time_key(b)
                .partial_cmp(&time_key(a))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        return best;
    }
    for file in files {
        let time = time_key(file);
        // No newer than the last kept: it comes after it (walk order).
        if best.len() == k && best.last().is_some_and(|last| time <= time_key(last)) {
            continue;
        }
        let at = best.partition_point(|kept| time_key(kept) >= time);
        best.insert(at, *file);
        best.truncate(k);
    }
    best
}

#[cfg(test)]
mod tests {
    use crate::error::HostError;
    use crate::future::block_on;
    use crate::host::FsCapabilities;
    use crate::store::{Store, StoreConfig, WriteMode};
    use crate::test_host::{FixedClock, FsOp, HookedFs};
    use crate::{MemFs, NoTelemetry};

    #[test]
    fn a_head_is_asked_no_longer_than_the_stat_said() {
        use super::head_ask;
        assert_eq!(head_ask(8192, 3000.0), 3000);
        assert_eq!(head_ask(8192, 8191.0), 8191);
        assert_eq!(head_ask(8192, 8192.0), 8192);
        assert_eq!(head_ask(8192, 1.0e9), 8192);
        // An empty file, or a size the host did not give or gave oddly: the whole ask.
        for size in [0.0, 0.5, -4.0, f64::NAN, f64::INFINITY] {
            assert_eq!(head_ask(8192, size), 8192, "{size}");
        }
        assert_eq!(head_ask(8192, 100.7), 100);
    }

    #[test]
    fn the_newest_are_the_start_of_the_whole_order() {
        use super::{newest, StatedFile};
        use crate::host::{EntryKind, FileStat};
        let mut rng = crate::test_rng::XorShift(0x5eed_0017_0000_0001);
        for round in 0..300 {
            let n = (rng.next() % 40) as usize;
            // Few distinct times, so that many are equal; now and then one that is not a number.
            let files: Vec<StatedFile> = (0..n)
                .map(|at| {
                    let r = rng.next() % 8;
                    let mtime_ms = match r {
                        0 if round % 3 == 0 => f64::NAN,
                        1 => -0.0,
                        _ => r as f64,
                    };
                    StatedFile {
                        at,
                        stat: FileStat {
                            kind: EntryKind::File,
                            size: 0.0,
                            mtime_ms,
                        },
                    }
                })
                .collect();
            let all: Vec<usize> = newest(&files, usize::MAX).iter().map(|f| f.at).collect();
            // Newest first, equal times (and every time that is not a number) in walk order.
            let key = |at: usize| {
                let t = files[at].stat.mtime_ms;
                if t.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    t
                }
            };
            for pair in all.windows(2) {
                let (a, b) = (key(pair[0]), key(pair[1]));
                assert!(a > b || (a == b && pair[0] < pair[1]), "{pair:?}");
            }
            for k in [1, 2, 5, n.saturating_sub(1), n, n + 3] {
                let some: Vec<usize> = newest(&files, k).iter().map(|f| f.at).collect();
                assert_eq!(some, all[..k.min(n)], "n {n} k {k}");
            }
        }
    }

    #[test]
    fn reads_only_the_newest_and_fills_in_for_unreadable_files() {
        let inner = MemFs::new();
        for i in 0..250 {
            let path = format!("/m/f{i:03}.md");
            inner.insert_file(&path, format!("---\ndescription: d{i}\n---\nbody\n"));
            inner.set_mtime(&path, 1.0e12 + f64::from(i) * 1000.0);
        }
        // A MemFs with head reads, which counts reads and cannot read one path.
        let caps = FsCapabilities {
            read_head: true,
            ..FsCapabilities::default()
        };
        let fs = HookedFs::new(inner, caps).refusing(|op, path| {
            let read = matches!(op, FsOp::ReadFile | FsOp::ReadHead);
            if read && path == "/m/f249.md" {
                return Err(HostError::new(Some("EACCES"), "denied"));
            }
            Ok(())
        });
        let memdir = Store::new(
            fs,
            FixedClock(1.7e12),
            NoTelemetry,
            "/m/",
            WriteMode::Auto,
            StoreConfig::default(),
        );
        let headers = block_on(memdir.scan()).unwrap();
        assert_eq!(headers.len(), 200);
        assert_eq!(headers[0].filename, "f248.md");
        assert_eq!(headers[0].description.as_deref(), Some("d248"));
        assert_eq!(headers[199].filename, "f049.md");
        // 200 headers plus the one unreadable file: the 49 oldest are never read.
        assert_eq!(memdir.fs.count(&[FsOp::ReadFile, FsOp::ReadHead]), 201);
    }
}
