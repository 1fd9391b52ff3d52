//! The doors to the outside world. The core never touches `std::fs`, the network, timers or the
//! clock: the host supplies them through these traits (on wasm, JS objects adapted in
//! `src/wasm/`). Traits are async and single-threaded (no `Send`), and taken as generics.
//!
//! Paths are POSIX strings (`/` separators); the memory directory is absolute.

#![allow(async_fn_in_trait)]

use crate::error::HostError;
use serde::{Deserialize, Serialize};

pub mod answers;
pub mod listing;

/// Result of a host call.
pub type HostResult<T> = Result<T, HostError>;

/// What a directory entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (as reported by `readDir`/`lstat`; `stat` follows it).
    Symlink,
}

/// One entry of a directory listing (one level).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DirEntry {
    /// The entry's name, no separators.
    pub name: String,
    /// Its kind, not following symlinks.
    pub kind: EntryKind,
}

/// File metadata.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStat {
    /// The kind (`stat` follows symlinks; `lstat` does not).
    pub kind: EntryKind,
    /// Size in bytes.
    pub size: f64,
    /// Modification time, milliseconds since the epoch (may be fractional).
    pub mtime_ms: f64,
}

/// Which optional methods a host filesystem provides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FsCapabilities {
    /// `rename(from, to)`: atomic replace.
    pub rename: bool,
    /// `realpath(path)`.
    pub realpath: bool,
    /// `lstat(path)`.
    pub lstat: bool,
    /// `appendFile(path, data)`.
    pub append_file: bool,
    /// `createExclusive(path, data)`: create only if absent (lock files).
    pub create_exclusive: bool,
    /// `readHead(path, maxBytes)`: read only the first bytes.
    pub read_head: bool,
    /// `lock(name)`: host-provided mutual exclusion (e.g. Web Locks in browsers).
    pub lock: bool,
    /// `writeFile` already replaces a file atomically (a reader or a crash sees the old
    /// content or the new, never a torn mix): the store then writes once instead of adding its
    /// own temp file and `rename` on top. Declared by the host (`atomicWrite: true`).
    pub atomic_write: bool,
    /// `appendFile` adds its data at the end in one write and never changes what was there
    /// before: a crash can cut the added data short (or, on some filesystems, leave NUL bytes
    /// in its place), and a reader at that moment may see part of it, but the bytes before it
    /// stay as they were (Node's `appendFile` on a local disk). The store then adds a new
    /// `MEMORY.md` entry by appending its line instead of rewriting the whole index; the
    /// journal repairs a line cut short. Declared by the host (`atomicAppend: true`).
    pub atomic_append: bool,
}

/// A lock held through the host's `lock` capability; released when dropped.
pub struct HostLock {
    _release: OnDrop,
}

impl HostLock {
    /// A lock released by calling `release` once.
    pub fn new(release: impl FnOnce() + 'static) -> Self {
        HostLock {
            _release: OnDrop::new(release),
        }
    }
}

impl std::fmt::Debug for HostLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostLock")
    }
}

/// Calls its function once, when dropped: the release of a [`HostLock`], the stop of a
/// [`HostWatch`].
struct OnDrop(Option<Box<dyn FnOnce()>>);

impl OnDrop {
    fn new(f: impl FnOnce() + 'static) -> Self {
        OnDrop(Some(Box::new(f)))
    }
}

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

/// What a host's change notification says (see [`FileSystem::watch`]).
///
/// ```
/// use memdir::host::WatchEvent;
/// assert_ne!(WatchEvent::Changed("a.md"), WatchEvent::Unknown);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchEvent<'a> {
    /// This path changed: created, written, removed or renamed (absolute, or relative to the
    /// watched directory).
    Changed(&'a str),
    /// Something below the watched directory changed; the host cannot say what.
    Unknown,
    /// The watch broke: no more notifications will come.
    Lost,
}

/// Receives a host's change notifications (see [`FileSystem::watch`]).
pub type WatchListener = std::rc::Rc<dyn Fn(WatchEvent<'_>)>;

/// A host's change notifications for a directory; they stop when this is dropped.
///
/// ```
/// use std::{cell::Cell, rc::Rc};
/// let stopped = Rc::new(Cell::new(false));
/// let flag = Rc::clone(&stopped);
/// drop(memdir::host::HostWatch::new(move || flag.set(true)));
/// assert!(stopped.get());
/// ```
pub struct HostWatch {
    _stop: OnDrop,
}

impl HostWatch {
    /// A watch stopped by calling `stop` once.
    pub fn new(stop: impl FnOnce() + 'static) -> Self {
        HostWatch {
            _stop: OnDrop::new(stop),
        }
    }
}

impl std::fmt::Debug for HostWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostWatch")
    }
}

/// A host filesystem. Errors carry the host's code (`ENOENT`, `EISDIR`, `ELOOP`, …).
pub trait FileSystem {
    /// Read a whole file as UTF-8 (invalid sequences become U+FFFD).
    async fn read_file(&self, path: &str) -> HostResult<String>;
    /// Create or replace a file.
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()>;
    /// List one directory level.
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>>;
    /// Metadata, following symlinks.
    async fn stat(&self, path: &str) -> HostResult<FileStat>;
    /// The stats of several paths (following symlinks), in order, `None` for a path that
    /// cannot be stat'ed. The default calls [`FileSystem::stat`] for each, concurrently; an
    /// adapter may answer a whole batch in one call (the JS adapter crosses the boundary once
    /// per batch, with one promise for it).
    async fn stat_many(&self, paths: &[&str]) -> Vec<Option<FileStat>> {
        let stats = paths
            .iter()
            .map(|path| async move { self.stat(path).await.ok() });
        crate::future::join_all(stats.collect()).await
    }
    /// [`FileSystem::read_dir`] as one packed [`listing::Listing`]. The default lists with
    /// `read_dir`; the JS adapter packs the names in one crossing and keeps them on its side,
    /// for [`FileSystem::stat_listed`].
    async fn read_dir_listing(&self, path: &str) -> HostResult<listing::Listing> {
        Ok(listing::Listing::from_entries(self.read_dir(path).await?))
    }
    /// [`FileSystem::stat_many`] of entries of `listing` (the listing of the directory `dir`,
    /// which ends with `/`), by their positions: the paths are `dir` and each entry's name. The
    /// default builds the paths; an adapter that kept the listing's names sends the positions
    /// only. A position past the listing reads as missing.
    async fn stat_listed(
        &self,
        dir: &str,
        listing: &listing::Listing,
        entries: &[u32],
    ) -> Vec<Option<FileStat>> {
        listing::stat_by_paths(self, dir, listing, entries).await
    }
    /// Create a directory and its parents; succeeds if it exists.
    async fn mkdir(&self, path: &str) -> HostResult<()>;
    /// Remove a file.
    async fn remove(&self, path: &str) -> HostResult<()>;

    /// Which optional methods below are real.
    fn capabilities(&self) -> FsCapabilities {
        FsCapabilities::default()
    }
    /// Atomically replace `to` with `from`.
    async fn rename(&self, _from: &str, _to: &str) -> HostResult<()> {
        Err(HostError::unsupported("rename"))
    }
    /// Resolve every symlink in `path`.
    async fn realpath(&self, _path: &str) -> HostResult<String> {
        Err(HostError::unsupported("realpath"))
    }
    /// Metadata without following a final symlink.
    async fn lstat(&self, _path: &str) -> HostResult<FileStat> {
        Err(HostError::unsupported("lstat"))
    }
    /// Append to a file, creating it if needed.
    async fn append_file(&self, _path: &str, _data: &str) -> HostResult<()> {
        Err(HostError::unsupported("appendFile"))
    }
    /// Create `path` with `data` only if it does not exist; `false` if it does.
    async fn create_exclusive(&self, _path: &str, _data: &str) -> HostResult<bool> {
        Err(HostError::unsupported("createExclusive"))
    }
    /// The first `max_bytes` bytes of a file (fewer if it is shorter).
    async fn read_head(&self, _path: &str, _max_bytes: usize) -> HostResult<Vec<u8>> {
        Err(HostError::unsupported("readHead"))
    }
    /// [`FileSystem::read_head`] of several files (each path with its `max_bytes`), in order,
    /// `None` for a file that cannot be read. The default reads each, concurrently; an adapter
    /// may answer a whole batch in one call (the JS adapter crosses the boundary once per batch).
    async fn read_head_many(&self, reads: &[(&str, usize)]) -> Vec<Option<Vec<u8>>> {
        let heads = reads
            .iter()
            .map(|&(path, max_bytes)| async move { self.read_head(path, max_bytes).await.ok() });
        crate::future::join_all(heads.collect()).await
    }
    /// Take the host lock called `name`, waiting for it; released when the guard drops.
    async fn lock(&self, _name: &str) -> HostResult<HostLock> {
        Err(HostError::unsupported("lock"))
    }
    /// The id of the machine this process runs on (e.g. its host name), if the host can tell.
    /// With [`FileSystem::process_id`] and [`FileSystem::process_alive`] it lets a lock file
    /// left by a killed process on this machine be broken at once instead of after the stale
    /// age.
    fn host_id(&self) -> Option<String> {
        None
    }
    /// This process's id, if the host can tell.
    fn process_id(&self) -> Option<u32> {
        None
    }
    /// Whether the process `pid` on this machine is alive; `None` when the host cannot tell.
    /// Only a definite `Some(false)` breaks a lock.
    async fn process_alive(&self, _pid: u32) -> Option<bool> {
        None
    }
    /// Watch `dir` and everything below it (optional): call `on_change` after each change, until
    /// the returned [`HostWatch`] is dropped. A notification may come late or twice, but a change
    /// must not go unreported; a host that cannot promise that leaves this unimplemented. Recall
    /// uses it to skip the stat pass over an unchanged directory.
    async fn watch(&self, _dir: &str, _on_change: WatchListener) -> HostResult<HostWatch> {
        Err(HostError::unsupported("watch"))
    }
}

/// Why the library is calling the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LlmPurpose {
    /// Selecting relevant memories for a query.
    Recall,
    /// Extracting memories from a conversation.
    Extract,
    /// Consolidating the memory directory.
    Consolidate,
}

/// Who said a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of an LLM request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LlmMessage {
    /// Who said it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

/// What the library asks of the host's model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmRequest {
    /// Why.
    pub purpose: LlmPurpose,
    /// The system prompt.
    pub system: String,
    /// The conversation.
    pub messages: Vec<LlmMessage>,
    /// Output token budget.
    pub max_tokens: u32,
    /// JSON Schema (as JSON text) the reply must follow, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<String>,
}

/// A host LLM. The reply is the model's text (the first text block).
pub trait Llm {
    /// Run one request. Dropping the future cancels it (the adapter aborts the request's signal).
    async fn complete(&self, request: &LlmRequest) -> HostResult<String>;
}

/// A host text embedder, for semantic recall: one vector per text, in order. The library never
/// bundles a model; the host supplies one (an embeddings endpoint, a local model). Recall
/// validates every answer (count, dimension, finite values) and falls back to the lexical
/// ranker when the embedder fails, lies, or does not answer within the recall timeout.
///
/// ```
/// use memdir::host::{Embedder, HostResult};
/// struct Lengths;
/// impl Embedder for Lengths {
///     fn model(&self) -> &str { "lengths-v1" }
///     async fn embed(&self, texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
///         Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect())
///     }
/// }
/// let v = memdir::future::block_on(Lengths.embed(&["abc".to_owned()])).unwrap();
/// assert_eq!(v, vec![vec![3.0, 1.0]]);
/// ```
pub trait Embedder {
    /// The model's id: vectors kept in the sidecar are reused only under the same id.
    fn model(&self) -> &str;
    /// Embed `texts`. Dropping the future cancels the call (the JS adapter aborts its signal).
    async fn embed(&self, texts: &[String]) -> HostResult<Vec<Vec<f32>>>;
}

/// An embedder that is never configured (the default of [`crate::Memdir`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEmbedder;

impl Embedder for NoEmbedder {
    fn model(&self) -> &str {
        "none"
    }
    async fn embed(&self, _texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
        Err(HostError::unsupported("embed"))
    }
}

impl<E: Embedder + ?Sized> Embedder for &E {
    fn model(&self) -> &str {
        (**self).model()
    }
    async fn embed(&self, texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
        (**self).embed(texts).await
    }
}

/// A telemetry field value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FieldValue {
    /// Text (never a secret, never memory content).
    Str(String),
    /// A number.
    Num(f64),
    /// A flag.
    Bool(bool),
}

/// A host telemetry sink. Fire-and-forget: it cannot fail the library.
pub trait Telemetry {
    /// Record one event.
    fn emit(&self, event: &str, fields: &[(&str, FieldValue)]);
    /// Whether events are recorded at all: when `false`, work done only to fill an event's
    /// fields (such as listing a directory to count its files) is skipped. Default `true`.
    fn enabled(&self) -> bool {
        true
    }
}

/// A host clock and timer.
pub trait Clock {
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// Resolve after `ms` milliseconds.
    async fn sleep(&self, ms: u32);
}

/// Telemetry that records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTelemetry;

impl Telemetry for NoTelemetry {
    fn emit(&self, _event: &str, _fields: &[(&str, FieldValue)]) {}
    fn enabled(&self) -> bool {
        false
    }
}

/// An LLM that is never configured (use `Option::<NoLlm>::None`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoLlm;

impl Llm for NoLlm {
    async fn complete(&self, _request: &LlmRequest) -> HostResult<String> {
        Err(HostError::unsupported("llm"))
    }
}

// A shared reference to a host object is a host object: one filesystem (clock, …) can serve
// several users that each own their handle.
impl<F: FileSystem + ?Sized> FileSystem for &F {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        (**self).read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        (**self).write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        (**self).read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        (**self).stat(path).await
    }
    async fn stat_many(&self, paths: &[&str]) -> Vec<Option<FileStat>> {
        (**self).stat_many(paths).await
    }
    async fn read_dir_listing(&self, path: &str) -> HostResult<listing::Listing> {
        (**self).read_dir_listing(path).await
    }
    async fn stat_listed(
        &self,
        dir: &str,
        listing: &listing::Listing,
        entries: &[u32],
    ) -> Vec<Option<FileStat>> {
        (**self).stat_listed(dir, listing, entries).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        (**self).mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        (**self).remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        (**self).capabilities()
    }
    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        (**self).rename(from, to).await
    }
    async fn realpath(&self, path: &str) -> HostResult<String> {
        (**self).realpath(path).await
    }
    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        (**self).lstat(path).await
    }
    async fn append_file(&self, path: &str, data: &str) -> HostResult<()> {
        (**self).append_file(path, data).await
    }
    async fn create_exclusive(&self, path: &str, data: &str) -> HostResult<bool> {
        (**self).create_exclusive(path, data).await
    }
    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        (**self).read_head(path, max_bytes).await
    }
    async fn read_head_many(&self, reads: &[(&str, usize)]) -> Vec<Option<Vec<u8>>> {
        (**self).read_head_many(reads).await
    }
    async fn lock(&self, name: &str) -> HostResult<HostLock> {
        (**self).lock(name).await
    }
    fn host_id(&self) -> Option<String> {
        (**self).host_id()
    }
    fn process_id(&self) -> Option<u32> {
        (**self).process_id()
    }
    async fn process_alive(&self, pid: u32) -> Option<bool> {
        (**self).process_alive(pid).await
    }
    async fn watch(&self, dir: &str, on_change: WatchListener) -> HostResult<HostWatch> {
        (**self).watch(dir, on_change).await
    }
}

impl<T: Telemetry + ?Sized> Telemetry for &T {
    fn emit(&self, event: &str, fields: &[(&str, FieldValue)]) {
        (**self).emit(event, fields);
    }
    fn enabled(&self) -> bool {
        (**self).enabled()
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_ms(&self) -> f64 {
        (**self).now_ms()
    }
    async fn sleep(&self, ms: u32) {
        (**self).sleep(ms).await;
    }
}
