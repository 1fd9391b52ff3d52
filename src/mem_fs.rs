//! `MemFs`: an in-memory [`FileSystem`] with directories and symlinks, for tests, demos and hosts
//! that keep memory elsewhere. Every write advances an internal clock by one millisecond so that
//! "newest first" is deterministic. It can be watched: every change made through it is
//! reported to the listeners of [`FileSystem::watch`] at once.
#![allow(clippy::disallowed_types)] // a test and demo filesystem: a BTreeMap keeps listings in path order

use crate::error::HostError;
use crate::host::{
    DirEntry, EntryKind, FileStat, FileSystem, FsCapabilities, HostResult, HostWatch, WatchEvent,
    WatchListener,
};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Clone, Debug)]
enum Node {
    File { data: Vec<u8>, mtime_ms: f64 },
    Dir { mtime_ms: f64 },
    Symlink { target: String },
}

/// An in-memory filesystem.
///
/// ```
/// use memdir::{MemFs, FileSystem};
/// let fs = MemFs::new();
/// fs.insert_file("/m/a.md", "hello");
/// ```
pub struct MemFs {
    nodes: RefCell<BTreeMap<String, Node>>,
    clock: Cell<f64>,
    watchers: Rc<Watchers>,
}

/// The listeners of [`FileSystem::watch`]: id, watched directory (normalised, ending with `/`)
/// and listener.
#[derive(Default)]
struct Watchers {
    list: RefCell<Vec<(u64, String, WatchListener)>>,
    next: Cell<u64>,
}

impl std::fmt::Debug for MemFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemFs")
            .field("nodes", &self.nodes)
            .field("clock", &self.clock)
            .field("watchers", &self.watchers.list.borrow().len())
            .finish()
    }
}

impl Default for MemFs {
    fn default() -> Self {
        Self::new()
    }
}

const MAX_LINK_HOPS: usize = 40;

fn err(code: &str, path: &str) -> HostError {
    HostError::new(Some(code), format!("{code}: {path}"))
}

fn parent_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// Lexically normalise an absolute POSIX path: no `.`/`..`/empty segments, no trailing `/`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", crate::jsstr::join(&parts, "/"))
}

impl MemFs {
    /// An empty filesystem holding only `/`; its clock starts at 2023-11-14T22:13:20Z.
    pub fn new() -> Self {
        let mut nodes = BTreeMap::new();
        nodes.insert("/".to_owned(), Node::Dir { mtime_ms: 0.0 });
        MemFs {
            nodes: RefCell::new(nodes),
            clock: Cell::new(1_700_000_000_000.0),
            watchers: Rc::new(Watchers::default()),
        }
    }

    /// Tell the watchers of a directory holding `path` (normalised) that it changed, with the
    /// path relative to their directory. Listeners run after every borrow is released.
    fn notify(&self, path: &str) {
        let due: Vec<(String, WatchListener)> = self
            .watchers
            .list
            .borrow()
            .iter()
            .filter_map(|(_, dir, listener)| {
                let rel = path.strip_prefix(dir.as_str())?;
                Some((rel.to_owned(), Rc::clone(listener)))
            })
            .collect();
        for (rel, listener) in due {
            listener(WatchEvent::Changed(&rel));
        }
    }

    /// Set the time stamped on the next write.
    pub fn set_time(&self, now_ms: f64) {
        self.clock.set(now_ms);
    }

    fn tick(&self) -> f64 {
        let t = self.clock.get();
        self.clock.set(t + 1.0);
        t
    }

    /// Create a file (and its parents) synchronously; for setting up tests and demos.
    pub fn insert_file(&self, path: &str, data: impl AsRef<[u8]>) {
        let path = normalize(path);
        self.mkdir_sync(parent_of(&path));
        let mtime_ms = self.tick();
        self.nodes.borrow_mut().insert(
            path.clone(),
            Node::File {
                data: data.as_ref().to_vec(),
                mtime_ms,
            },
        );
        self.notify(&path);
    }

    /// Set a file's modification time.
    pub fn set_mtime(&self, path: &str, mtime_ms: f64) {
        let path = normalize(path);
        if let Some(Node::File { mtime_ms: m, .. }) = self.nodes.borrow_mut().get_mut(&path) {
            *m = mtime_ms;
        }
        self.notify(&path);
    }

    /// Create a symlink at `path` pointing to `target` (absolute, or relative to `path`'s parent).
    pub fn symlink(&self, target: &str, path: &str) {
        let path = normalize(path);
        self.mkdir_sync(parent_of(&path));
        self.nodes.borrow_mut().insert(
            path.clone(),
            Node::Symlink {
                target: target.to_owned(),
            },
        );
        self.notify(&path);
    }

    /// Every regular file and its contents, sorted by path (for assertions).
    pub fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        self.nodes
            .borrow()
            .iter()
            .filter_map(|(p, n)| match n {
                Node::File { data, .. } => Some((p.clone(), data.clone())),
                _ => None,
            })
            .collect()
    }

    fn mkdir_sync(&self, path: &str) {
        let path = normalize(path);
        let mut cur = String::new();
        for seg in path.split('/').filter(|s| !s.is_empty()) {
            cur.push('/');
            cur.push_str(seg);
            let exists = self.nodes.borrow().contains_key(&cur);
            if !exists {
                let m = self.clock.get();
                self.nodes
                    .borrow_mut()
                    .insert(cur.clone(), Node::Dir { mtime_ms: m });
                self.notify(&cur);
            }
        }
    }

    /// Resolve symlinks in `path`; the final component too when `follow_last`.
    fn resolve(&self, path: &str, follow_last: bool) -> HostResult<String> {
        let nodes = self.nodes.borrow();
        let mut pending: Vec<String> = normalize(path)
            .split('/')
            .filter(|s| !s.is_empty())
            .rev()
            .map(str::to_owned)
            .collect();
        let mut cur = String::from("/");
        let mut hops = 0;
        while let Some(seg) = pending.pop() {
            let next = if cur == "/" {
                format!("/{seg}")
            } else {
                format!("{cur}/{seg}")
            };
            let is_last = pending.is_empty();
            match nodes.get(&next) {
                None => {
                    // A missing final component is fine for callers that create it.
                    return if is_last {
                        Ok(next)
                    } else {
                        Err(err("ENOENT", path))
                    };
                }
                Some(Node::Symlink { target }) if follow_last || !is_last => {
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Err(err("ELOOP", path));
                    }
                    let joined = if target.starts_with('/') {
                        target.clone()
                    } else {
                        format!("{cur}/{target}")
                    };
                    // Re-walk the link target from the root, then the rest of the path.
                    pending.extend(
                        normalize(&joined)
                            .split('/')
                            .filter(|s| !s.is_empty())
                            .rev()
                            .map(str::to_owned),
                    );
                    cur = String::from("/");
                }
                Some(Node::File { .. }) if !is_last => return Err(err("ENOTDIR", path)),
                Some(_) => cur = next,
            }
        }
        Ok(cur)
    }

    fn get(&self, real: &str) -> Option<Node> {
        self.nodes.borrow().get(real).cloned()
    }

    /// The stat of the node at `real` (read in place: a file's bytes are not copied).
    fn stat_of(&self, real: &str, path: &str) -> HostResult<FileStat> {
        match self.nodes.borrow().get(real) {
            None => Err(err("ENOENT", path)),
            Some(&Node::File { ref data, mtime_ms }) => Ok(FileStat {
                kind: EntryKind::File,
                size: data.len() as f64,
                mtime_ms,
            }),
            Some(&Node::Dir { mtime_ms }) => Ok(FileStat {
                kind: EntryKind::Dir,
                size: 0.0,
                mtime_ms,
            }),
            Some(Node::Symlink { .. }) => Ok(FileStat {
                kind: EntryKind::Symlink,
                size: 0.0,
                mtime_ms: 0.0,
            }),
        }
    }

    fn read_bytes(&self, path: &str) -> HostResult<Vec<u8>> {
        let real = self.resolve(path, true)?;
        match self.get(&real) {
            Some(Node::File { data, .. }) => Ok(data),
            Some(_) => Err(err("EISDIR", path)),
            None => Err(err("ENOENT", path)),
        }
    }

    fn write_bytes(&self, path: &str, data: Vec<u8>, append: bool) -> HostResult<()> {
        let real = self.resolve(path, true)?;
        match self.get(parent_of(&real)) {
            Some(Node::Dir { .. }) => {}
            Some(_) => return Err(err("ENOTDIR", path)),
            None => return Err(err("ENOENT", path)),
        }
        let mut data = data;
        match self.get(&real) {
            Some(Node::Dir { .. }) => return Err(err("EISDIR", path)),
            Some(Node::File { data: old, .. }) if append => {
                let mut joined = old;
                joined.extend_from_slice(&data);
                data = joined;
            }
            _ => {}
        }
        let mtime_ms = self.tick();
        self.nodes
            .borrow_mut()
            .insert(real.clone(), Node::File { data, mtime_ms });
        self.notify(&real);
        Ok(())
    }
}

impl FileSystem for MemFs {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        Ok(String::from_utf8_lossy(&self.read_bytes(path)?).into_owned())
    }

    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.write_bytes(path, data.as_bytes().to_vec(), false)
    }

    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        let real = self.resolve(path, true)?;
        match self.get(&real) {
            Some(Node::Dir { .. }) => {}
            Some(_) => return Err(err("ENOTDIR", path)),
            None => return Err(err("ENOENT", path)),
        }
        let prefix = if real == "/" {
            "/".to_owned()
        } else {
            format!("{real}/")
        };
        let nodes = self.nodes.borrow();
        Ok(nodes
            .range(prefix.clone()..)
            .take_while(|(p, _)| p.starts_with(&prefix))
            .filter(|(p, _)| !p[prefix.len()..].contains('/') && p.len() > prefix.len())
            .map(|(p, n)| DirEntry {
                name: p[prefix.len()..].to_owned(),
                kind: match n {
                    Node::File { .. } => EntryKind::File,
                    Node::Dir { .. } => EntryKind::Dir,
                    Node::Symlink { .. } => EntryKind::Symlink,
                },
            })
            .collect())
    }

    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        let real = self.resolve(path, true)?;
        self.stat_of(&real, path)
    }

    async fn mkdir(&self, path: &str) -> HostResult<()> {
        // Missing ancestors are created too (recursive); resolve only what exists.
        let real = match self.resolve(path, true) {
            Err(e) if e.is_not_found() => normalize(path),
            other => other?,
        };
        if let Some(Node::File { .. }) = self.get(&real) {
            return Err(err("EEXIST", path));
        }
        self.mkdir_sync(&real);
        Ok(())
    }

    async fn remove(&self, path: &str) -> HostResult<()> {
        let real = self.resolve(path, false)?;
        match self.get(&real) {
            None => Err(err("ENOENT", path)),
            Some(Node::Dir { .. }) => Err(err("EISDIR", path)),
            Some(_) => {
                self.nodes.borrow_mut().remove(&real);
                self.notify(&real);
                Ok(())
            }
        }
    }

    fn capabilities(&self) -> FsCapabilities {
        FsCapabilities {
            rename: true,
            realpath: true,
            lstat: true,
            append_file: true,
            create_exclusive: true,
            read_head: true,
            lock: false,
            // Writes here are atomic, but the store's own temp + rename path stays exercised
            // by the many tests that run on this filesystem.
            atomic_write: false,
            // Likewise: the index rewrite stays the path these tests exercise; the append path
            // is tested with hosts that declare it.
            atomic_append: false,
        }
    }

    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        let src = self.resolve(from, false)?;
        let dst = self.resolve(to, true)?;
        let node = self.get(&src).ok_or_else(|| err("ENOENT", from))?;
        if matches!(self.get(&dst), Some(Node::Dir { .. })) {
            return Err(err("EISDIR", to));
        }
        if !matches!(self.get(parent_of(&dst)), Some(Node::Dir { .. })) {
            return Err(err("ENOENT", to));
        }
        {
            let mut nodes = self.nodes.borrow_mut();
            nodes.remove(&src);
            nodes.insert(dst.clone(), node);
        }
        self.notify(&src);
        self.notify(&dst);
        Ok(())
    }

    async fn realpath(&self, path: &str) -> HostResult<String> {
        let real = self.resolve(path, true)?;
        if self.get(&real).is_none() {
            return Err(err("ENOENT", path));
        }
        Ok(real)
    }

    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        let real = self.resolve(path, false)?;
        self.stat_of(&real, path)
    }

    async fn append_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.write_bytes(path, data.as_bytes().to_vec(), true)
    }

    async fn create_exclusive(&self, path: &str, data: &str) -> HostResult<bool> {
        let real = self.resolve(path, false)?;
        if self.get(&real).is_some() {
            return Ok(false);
        }
        self.write_bytes(path, data.as_bytes().to_vec(), false)?;
        Ok(true)
    }

    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        let mut data = self.read_bytes(path)?;
        data.truncate(max_bytes);
        Ok(data)
    }

    /// Every change made through this `MemFs` below `dir` (resolved) is reported at once, with
    /// its path relative to `dir`.
    async fn watch(&self, dir: &str, on_change: WatchListener) -> HostResult<HostWatch> {
        let real = self.resolve(dir, true)?;
        if !matches!(self.get(&real), Some(Node::Dir { .. })) {
            return Err(err("ENOTDIR", dir));
        }
        let prefix = if real == "/" {
            real
        } else {
            format!("{real}/")
        };
        let id = self.watchers.next.get();
        self.watchers.next.set(id + 1);
        self.watchers
            .list
            .borrow_mut()
            .push((id, prefix, on_change));
        let watchers = Rc::downgrade(&self.watchers);
        Ok(HostWatch::new(move || {
            if let Some(watchers) = watchers.upgrade() {
                watchers.list.borrow_mut().retain(|(i, _, _)| *i != id);
            }
        }))
    }
}
