//! Team sync bound to a [`Store`]: every pull writes into the store's directory, so its writes
//! run as a write of that store — refused in `off` and `read-only` mode (before any request),
//! and under the directory lock, so they never interleave with a save's read-modify-write of an
//! index. The request itself (timeouts, backoff, `Retry-After` waits) runs outside the lock. Pushes read, and write
//! nothing but the copies a conflict keeps in `team/.conflicts/` (new files no index names).

use super::{
    PullOutcome, PushOutcome, SyncConfig, SyncState, TeamSync, TeamWatcher, Transport, WriteScope,
};
use crate::error::Result;
use crate::host::{Clock, FileSystem, Telemetry};
use crate::store::Store;
use std::ops::Deref;
use std::rc::Rc;

/// A [`StoreSync`] that shares ownership of its store (what [`crate::Memdir::team_sync`] and the
/// JS `TeamSync` hold).
pub type SharedStoreSync<F, X, C, M> = StoreSync<Rc<Store<F, C, M>>, F, X, C, M>;

/// A [`TeamWatcher`] whose pulls take the lock of a store (held by `S`: a `&Store`, an
/// `Rc<Store>` …).
///
/// ```
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::sync::{HttpRequest, HttpResponse, StoreSync, SyncConfig, SyncState, Transport};
/// use memdir::{future::block_on, Code, HostError, MemFs, NoTelemetry};
/// # #[derive(Clone)] struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// struct Empty;
/// impl Transport for Empty {
///     async fn send(&self, _: HttpRequest) -> Result<HttpResponse, HostError> {
///         Ok(HttpResponse { status: 404, headers: vec![], body: String::new() })
///     }
/// }
/// let config = SyncConfig::new("https://h.example", "acme/app", "/m/team/");
/// let fs = MemFs::new();
/// // The sync clones the store's host objects: here a shared reference to the filesystem.
/// let store = Store::new(&fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let sync = StoreSync::for_store(&store, Empty, config.clone(), SyncState::default());
/// assert!(!block_on(sync.pull()).unwrap().server_has_content);
/// // In read-only mode a pull is a refused write.
/// let ro = Store::new(&fs, Clock0, NoTelemetry, "/m/", WriteMode::ReadOnly, StoreConfig::default());
/// let sync = StoreSync::for_store(&ro, Empty, config, SyncState::default());
/// assert_eq!(block_on(sync.pull()).unwrap_err().code, Code::WriteForbidden);
/// ```
pub struct StoreSync<S, F, X, C, M> {
    store: S,
    watcher: TeamWatcher<F, X, C, M>,
}

impl<S, SF, SC, ST, F, X, C, M> StoreSync<S, F, X, C, M>
where
    S: Deref<Target = Store<SF, SC, ST>>,
    SF: FileSystem,
    SC: Clock,
    ST: Telemetry,
    F: FileSystem,
    X: Transport,
    C: Clock,
    M: Telemetry,
{
    /// Bind `watcher` (over the team directory of `store`) to `store`.
    pub fn new(store: S, watcher: TeamWatcher<F, X, C, M>) -> Self {
        StoreSync { store, watcher }
    }

    /// The first pull, its writes under the store's lock; emits `team_sync_started` (see
    /// [`TeamWatcher::start`]).
    pub async fn start(&self) -> Result<PullOutcome> {
        self.watcher.start_in(&StoreWrites(&*self.store)).await
    }

    /// Pull now: the request outside the store's lock, the writes under it.
    pub async fn pull(&self) -> Result<PullOutcome> {
        self.watcher.pull_in(&StoreWrites(&*self.store)).await
    }

    /// Push now (no lock: a push reads, and writes only conflict copies under `.conflicts/`).
    pub async fn push_now(&self) -> Result<PushOutcome> {
        self.watcher.push_now().await
    }

    /// The host saw a change under the team directory (`path_exists` false for a deletion).
    pub fn notify(&self, path_exists: bool) {
        self.watcher.notify(path_exists);
    }

    /// The push loop (see [`TeamWatcher::run`]).
    pub async fn run(&self, should_stop: impl Fn() -> bool) {
        self.watcher.run(should_stop).await;
    }

    /// The watcher (state, debouncer).
    pub fn watcher(&self) -> &TeamWatcher<F, X, C, M> {
        &self.watcher
    }
}

/// A pull's writes as writes of a store: refused in `off`/`read-only` mode, under its lock.
struct StoreWrites<'a, F: FileSystem, C: Clock, T: Telemetry>(&'a Store<F, C, T>);

impl<F: FileSystem, C: Clock, T: Telemetry> WriteScope for StoreWrites<'_, F, C, T> {
    fn check(&self) -> Result<()> {
        self.0.check_writable()
    }
    async fn run<R>(&self, work: impl std::future::Future<Output = R>) -> Result<R> {
        self.0.with_write_lock(work).await
    }
}

impl<S, F, X, C, M> StoreSync<S, F, X, C, M>
where
    S: Deref<Target = Store<F, C, M>>,
    F: FileSystem + Clone,
    X: Transport,
    C: Clock + Clone,
    M: Telemetry + Clone,
{
    /// Team sync over `store`'s own host objects (cloned), talking through `transport`;
    /// `config.team_dir` should be the store's `team/` directory
    /// ([`crate::paths::team_dir`] of [`Store::dir`]).
    pub fn for_store(store: S, transport: X, config: SyncConfig, state: SyncState) -> Self {
        let sync = TeamSync {
            fs: store.fs().clone(),
            transport,
            clock: store.clock().clone(),
            telemetry: store.telemetry().clone(),
            config,
        };
        StoreSync {
            watcher: TeamWatcher::new(sync, state),
            store,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::error::{Code, HostError};
    use crate::future::block_on;
    use crate::host::{FileSystem, NoTelemetry};
    use crate::store::{StoreConfig, WriteMode, LOCK_FILE_NAME};
    use crate::sync::{HttpRequest, HttpResponse};
    use crate::MemFs;
    use std::cell::RefCell;

    #[derive(Clone)]
    struct Clock0;
    impl Clock for Clock0 {
        fn now_ms(&self) -> f64 {
            0.0
        }
        async fn sleep(&self, _ms: u32) {}
    }

    /// A server with one entry, which notes whether the store's lock file exists at each request.
    struct Probe<'a> {
        fs: &'a MemFs,
        locked: RefCell<Vec<bool>>,
    }
    impl Transport for Probe<'_> {
        async fn send(&self, _: HttpRequest) -> std::result::Result<HttpResponse, HostError> {
            let held = self
                .fs
                .read_file(&format!("/m/{LOCK_FILE_NAME}"))
                .await
                .is_ok();
            self.locked.borrow_mut().push(held);
            Ok(HttpResponse {
                status: 200,
                headers: Vec::new(),
                body: r#"{"checksum":"c","content":{"entries":{"a.md":"from the server"}}}"#
                    .to_owned(),
            })
        }
    }

    fn store(fs: &MemFs, mode: WriteMode) -> Store<&MemFs, Clock0, NoTelemetry> {
        Store::new(fs, Clock0, NoTelemetry, "/m/", mode, StoreConfig::default())
    }

    #[test]
    fn pulls_write_as_the_store_and_request_outside_its_lock() {
        let fs = MemFs::new();
        let probe = Probe {
            fs: &fs,
            locked: RefCell::new(Vec::new()),
        };
        let config = SyncConfig::new("https://h.example", "acme/app", "/m/team/");
        // Read-only: refused before any request.
        let ro = store(&fs, WriteMode::ReadOnly);
        let sync = StoreSync::for_store(&ro, &probe, config.clone(), SyncState::default());
        assert_eq!(
            block_on(sync.pull()).unwrap_err().code,
            Code::WriteForbidden
        );
        assert!(probe.locked.borrow().is_empty());

        let rw = store(&fs, WriteMode::Auto);
        let sync = StoreSync::for_store(&rw, &probe, config, SyncState::default());
        assert_eq!(block_on(sync.start()).unwrap().files_written, 1);
        assert!(block_on(sync.pull()).is_ok());
        let during_requests = probe.locked.take();
        assert_eq!(
            during_requests,
            [false, false],
            "a slow server never holds the lock"
        );
        assert_eq!(
            block_on(fs.read_file("/m/team/a.md")).unwrap(),
            "from the server"
        );
        // Released afterwards.
        assert!(block_on(fs.read_file(&format!("/m/{LOCK_FILE_NAME}"))).is_err());
    }
}
