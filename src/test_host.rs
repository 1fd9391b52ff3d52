//! Host doubles for the unit tests (test builds only): [`HookedFs`], a [`MemFs`] that logs its
//! calls and lets a test refuse some, and [`FixedClock`], a clock that stands still.

use crate::host::{Clock, DirEntry, FileStat, FileSystem, FsCapabilities, HostResult};
use crate::{HostError, MemFs};
use std::cell::RefCell;

/// A filesystem method, as logged by [`HookedFs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FsOp {
    ReadFile,
    WriteFile,
    ReadDir,
    Stat,
    Mkdir,
    Remove,
    Rename,
    ReadHead,
    /// `realpath` asked (logged on entry)…
    Realpath,
    /// …and answered, after one pending poll (so calls made together show as overlapping).
    RealpathDone,
}

/// The check a [`HookedFs`] runs before each call: an error refuses the call.
type Check = Box<dyn Fn(FsOp, &str) -> HostResult<()>>;

/// Forwards the six core methods to `inner`, and `rename`, `read_head` and `realpath` when `caps`
/// claim them (otherwise they are unsupported, as the trait's defaults are). Every call is logged
/// with its path (a rename with its destination) before the check runs.
pub(crate) struct HookedFs {
    pub(crate) inner: MemFs,
    pub(crate) caps: FsCapabilities,
    /// Every call with its path, in order.
    pub(crate) calls: RefCell<Vec<(FsOp, String)>>,
    check: Check,
}

impl HookedFs {
    /// A logging forwarder over `inner` claiming `caps`, refusing nothing.
    pub(crate) fn new(inner: MemFs, caps: FsCapabilities) -> Self {
        HookedFs {
            inner,
            caps,
            calls: RefCell::new(Vec::new()),
            check: Box::new(|_, _| Ok(())),
        }
    }

    /// The same, refusing the calls `check` answers with an error.
    pub(crate) fn refusing(self, check: impl Fn(FsOp, &str) -> HostResult<()> + 'static) -> Self {
        HookedFs {
            check: Box::new(check),
            ..self
        }
    }

    /// The calls of the kinds in `ops`, in order.
    pub(crate) fn calls_of(&self, ops: &[FsOp]) -> Vec<(FsOp, String)> {
        let calls = self.calls.borrow();
        calls
            .iter()
            .filter(|(op, _)| ops.contains(op))
            .cloned()
            .collect()
    }

    /// How many calls of the kinds in `ops` were made.
    pub(crate) fn count(&self, ops: &[FsOp]) -> usize {
        let calls = self.calls.borrow();
        calls.iter().filter(|(op, _)| ops.contains(op)).count()
    }

    fn enter(&self, op: FsOp, path: &str) -> HostResult<()> {
        self.calls.borrow_mut().push((op, path.to_owned()));
        (self.check)(op, path)
    }
}

impl FileSystem for HookedFs {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.enter(FsOp::ReadFile, path)?;
        self.inner.read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.enter(FsOp::WriteFile, path)?;
        self.inner.write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.enter(FsOp::ReadDir, path)?;
        self.inner.read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.enter(FsOp::Stat, path)?;
        self.inner.stat(path).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        self.enter(FsOp::Mkdir, path)?;
        self.inner.mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        self.enter(FsOp::Remove, path)?;
        self.inner.remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        self.caps
    }
    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        if !self.caps.rename {
            return Err(HostError::unsupported("rename"));
        }
        self.enter(FsOp::Rename, to)?;
        self.inner.rename(from, to).await
    }
    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        if !self.caps.read_head {
            return Err(HostError::unsupported("readHead"));
        }
        self.enter(FsOp::ReadHead, path)?;
        self.inner.read_head(path, max_bytes).await
    }
    async fn realpath(&self, path: &str) -> HostResult<String> {
        if !self.caps.realpath {
            return Err(HostError::unsupported("realpath"));
        }
        self.enter(FsOp::Realpath, path)?;
        PendingOnce(false).await;
        self.calls
            .borrow_mut()
            .push((FsOp::RealpathDone, path.to_owned()));
        self.inner.realpath(path).await
    }
}

/// Pending once (waking itself), then ready.
struct PendingOnce(bool);

impl std::future::Future for PendingOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// A clock that stands at its milliseconds, whose sleeps end at once.
pub(crate) struct FixedClock(pub(crate) f64);

impl Clock for FixedClock {
    fn now_ms(&self) -> f64 {
        self.0
    }
    async fn sleep(&self, _ms: u32) {}
}
