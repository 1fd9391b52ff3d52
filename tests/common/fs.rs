//! [`Tap`]: a filesystem that forwards every call to another one and can be told to misbehave
//! (yield, hang, refuse, hide capabilities, offer a host lock or a watch) and to log its calls.

use super::YieldOnce;
use memdir::future::block_on;
use memdir::host::{
    DirEntry, FileStat, FileSystem, FsCapabilities, HostLock, HostResult, HostWatch, WatchEvent,
    WatchListener,
};
use memdir::{HostError, MemFs};
use std::cell::{Cell, RefCell};
use std::ops::Deref;
use std::rc::Rc;

/// A filesystem method, as logged by [`Tap`] and named in [`Tap::denied`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    ReadFile,
    WriteFile,
    ReadDir,
    Stat,
    Mkdir,
    Remove,
    Rename,
    Realpath,
    Lstat,
    AppendFile,
    CreateExclusive,
    ReadHead,
}

/// The calls that read or list: whole reads, head reads, listings and stats (not `lstat`).
pub const READS: &[Op] = &[Op::ReadFile, Op::ReadHead, Op::ReadDir, Op::Stat];

/// What [`Tap::on_call`] runs on each call.
pub type OnCall = Rc<dyn Fn(Op, &str)>;

/// How [`Tap`] answers `watch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watch {
    /// No watch (the trait's "unsupported").
    None,
    /// The inner filesystem's watch.
    Forward,
    /// A watch that reports only what the test sends through [`Tap::send`].
    Manual,
}

/// Forwards every call to `inner` (anything that derefs to a filesystem: `&MemFs`,
/// `Rc<MemFs>`, `Box<StdFs>`), after the behaviour its fields ask for. Built by [`Tap::new`]
/// as a plain forwarder, then adjusted field by field.
pub struct Tap<F> {
    pub inner: F,
    /// The capabilities claimed (the inner ones by default; `lock` comes from `host_lock`).
    pub caps: FsCapabilities,
    /// Yield once before every call, so concurrent operations interleave.
    pub yields: bool,
    /// `write_file` never answers while set.
    pub hang_writes: Cell<bool>,
    /// `create_exclusive` never answers while set.
    pub hang_create: Cell<bool>,
    /// The calls in [`READS`] never answer while set.
    pub hang_reads: Cell<bool>,
    /// Called with each call and its (first) path as it arrives, before it is forwarded.
    pub on_call: Option<OnCall>,
    /// These methods fail with `EACCES`.
    pub denied: Vec<Op>,
    /// While set, the disk is full: calls that write data (`write_file`, `append_file`,
    /// `create_exclusive`) fail with `ENOSPC`. Shared between clones.
    pub no_space: Rc<Cell<bool>>,
    /// `Some(hang)`: offer the host `lock`, which never answers when `hang`.
    pub host_lock: Option<bool>,
    /// Names passed to the host `lock`, in order.
    pub locks_taken: RefCell<Vec<String>>,
    /// How many host locks were released.
    pub locks_released: Rc<Cell<u32>>,
    /// `(host id, our pid, live pids)`.
    pub owner: Option<(&'static str, u32, Vec<u32>)>,
    /// How `watch` is answered.
    pub watch: Watch,
    listener: Rc<RefCell<Option<WatchListener>>>,
    /// Every call with its (first) path, shared between clones.
    pub calls: Rc<RefCell<Vec<(Op, String)>>>,
}

impl<F: Clone> Clone for Tap<F> {
    /// A handle on the same logs, lock counters and watch listener.
    fn clone(&self) -> Self {
        Tap {
            inner: self.inner.clone(),
            caps: self.caps,
            yields: self.yields,
            hang_writes: self.hang_writes.clone(),
            hang_create: self.hang_create.clone(),
            hang_reads: self.hang_reads.clone(),
            on_call: self.on_call.clone(),
            denied: self.denied.clone(),
            no_space: Rc::clone(&self.no_space),
            host_lock: self.host_lock,
            locks_taken: self.locks_taken.clone(),
            locks_released: Rc::clone(&self.locks_released),
            owner: self.owner.clone(),
            watch: self.watch,
            listener: Rc::clone(&self.listener),
            calls: Rc::clone(&self.calls),
        }
    }
}

impl<F> Tap<F>
where
    F: Deref,
    F::Target: FileSystem,
{
    /// A plain forwarder claiming the inner capabilities (without `lock`) and no watch.
    pub fn new(inner: F) -> Self {
        let caps = FsCapabilities {
            lock: false,
            ..inner.capabilities()
        };
        Tap {
            inner,
            caps,
            yields: false,
            hang_writes: Cell::new(false),
            hang_create: Cell::new(false),
            hang_reads: Cell::new(false),
            on_call: None,
            denied: Vec::new(),
            no_space: Rc::default(),
            host_lock: None,
            locks_taken: RefCell::new(Vec::new()),
            locks_released: Rc::new(Cell::new(0)),
            owner: None,
            watch: Watch::None,
            listener: Rc::default(),
            calls: Rc::default(),
        }
    }

    /// Yields once before every call.
    pub fn yielding(inner: F) -> Self {
        Tap {
            yields: true,
            ..Self::new(inner)
        }
    }

    /// Claims `caps` instead of the inner capabilities.
    pub fn with_caps(inner: F, caps: FsCapabilities) -> Self {
        Tap {
            caps,
            ..Self::new(inner)
        }
    }

    /// Paths passed to calls of the kinds in `ops`, in order.
    pub fn paths_of(&self, ops: &[Op]) -> Vec<String> {
        self.calls
            .borrow()
            .iter()
            .filter(|(op, _)| ops.contains(op))
            .map(|(_, path)| path.clone())
            .collect()
    }

    /// How many calls of the kinds in `ops` were made.
    pub fn count(&self, ops: &[Op]) -> usize {
        self.calls
            .borrow()
            .iter()
            .filter(|(op, _)| ops.contains(op))
            .count()
    }

    /// Forget the calls made so far.
    pub fn clear_calls(&self) {
        self.calls.borrow_mut().clear();
    }

    /// Report `event` to the listener of a [`Watch::Manual`] watch.
    pub fn send(&self, event: WatchEvent<'_>) {
        let listener = self.listener.borrow().clone();
        listener.expect("watching")(event);
    }

    /// Sets [`Tap::on_call`] to run `action` as each `op` call on `path` or on one of its temp
    /// files (a path that starts with `path`) arrives.
    pub fn on(&mut self, op: Op, path: &'static str, action: impl Fn() + 'static) {
        self.on_call = Some(Rc::new(move |called, at: &str| {
            if called == op && at.starts_with(path) {
                action();
            }
        }));
    }

    /// The text of `watched` in `fs` as it is when `written` (or one of its temp files) is
    /// written: `None` until the first such write, then the text at the latest one (`None`
    /// again if `watched` was missing then). Sets [`Tap::on_call`].
    pub fn text_when_written(
        &mut self,
        written: &'static str,
        fs: &'static MemFs,
        watched: &'static str,
    ) -> Rc<RefCell<Option<String>>> {
        let seen = Rc::new(RefCell::new(None));
        let sink = Rc::clone(&seen);
        self.on(Op::WriteFile, written, move || {
            *sink.borrow_mut() = block_on(fs.read_file(watched)).ok();
        });
        seen
    }

    /// Log the call, tell `on_call`, hang or yield if asked, and refuse it if denied.
    async fn enter(&self, op: Op, path: &str) -> HostResult<()> {
        self.calls.borrow_mut().push((op, path.to_owned()));
        if let Some(on_call) = &self.on_call {
            on_call(op, path);
        }
        if self.hang_reads.get() && READS.contains(&op) {
            std::future::pending::<()>().await;
        }
        if self.yields {
            YieldOnce(false).await;
        }
        if self.denied.contains(&op) {
            return Err(HostError::new(Some("EACCES"), format!("denied: {path}")));
        }
        let writes = [Op::WriteFile, Op::AppendFile, Op::CreateExclusive];
        if self.no_space.get() && writes.contains(&op) {
            return Err(HostError::new(Some("ENOSPC"), format!("disk full: {path}")));
        }
        Ok(())
    }
}

impl<F> FileSystem for Tap<F>
where
    F: Deref,
    F::Target: FileSystem,
{
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.enter(Op::ReadFile, path).await?;
        self.inner.read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.enter(Op::WriteFile, path).await?;
        if self.hang_writes.get() {
            std::future::pending::<()>().await;
        }
        self.inner.write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.enter(Op::ReadDir, path).await?;
        self.inner.read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.enter(Op::Stat, path).await?;
        self.inner.stat(path).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        self.enter(Op::Mkdir, path).await?;
        self.inner.mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        self.enter(Op::Remove, path).await?;
        self.inner.remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        FsCapabilities {
            lock: self.host_lock.is_some(),
            ..self.caps
        }
    }
    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        self.enter(Op::Rename, from).await?;
        self.inner.rename(from, to).await
    }
    async fn realpath(&self, path: &str) -> HostResult<String> {
        self.enter(Op::Realpath, path).await?;
        self.inner.realpath(path).await
    }
    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        self.enter(Op::Lstat, path).await?;
        self.inner.lstat(path).await
    }
    async fn append_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.enter(Op::AppendFile, path).await?;
        self.inner.append_file(path, data).await
    }
    async fn create_exclusive(&self, path: &str, data: &str) -> HostResult<bool> {
        self.enter(Op::CreateExclusive, path).await?;
        if self.hang_create.get() {
            std::future::pending::<()>().await;
        }
        self.inner.create_exclusive(path, data).await
    }
    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        self.enter(Op::ReadHead, path).await?;
        self.inner.read_head(path, max_bytes).await
    }
    async fn lock(&self, name: &str) -> HostResult<HostLock> {
        match self.host_lock {
            None => Err(HostError::unsupported("lock")),
            Some(true) => std::future::pending().await,
            Some(false) => {
                self.locks_taken.borrow_mut().push(name.to_owned());
                let released = Rc::clone(&self.locks_released);
                Ok(HostLock::new(move || released.set(released.get() + 1)))
            }
        }
    }
    fn host_id(&self) -> Option<String> {
        self.owner.as_ref().map(|(host, _, _)| (*host).to_owned())
    }
    fn process_id(&self) -> Option<u32> {
        self.owner.as_ref().map(|(_, pid, _)| *pid)
    }
    async fn process_alive(&self, pid: u32) -> Option<bool> {
        self.owner
            .as_ref()
            .map(|(_, _, alive)| alive.contains(&pid))
    }
    async fn watch(&self, dir: &str, on_change: WatchListener) -> HostResult<HostWatch> {
        match self.watch {
            Watch::None => Err(HostError::unsupported("watch")),
            Watch::Forward => self.inner.watch(dir, on_change).await,
            Watch::Manual => {
                *self.listener.borrow_mut() = Some(on_change);
                let listener = Rc::clone(&self.listener);
                Ok(HostWatch::new(move || *listener.borrow_mut() = None))
            }
        }
    }
}
