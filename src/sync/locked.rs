//! Team sync bound to a [`Store`]: every pull writes into the store's directory, so it runs as a
//! write of that store — refused in `off` and `read-only` mode, and under the directory lock,
//! so it never interleaves with a save's read-modify-write of an index. Pushes only read.

use super::{PullOutcome, PushOutcome, SyncConfig, SyncState, TeamSync, TeamWatcher, Transport};
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

    /// The first pull under the store's lock; emits `team_sync_started` (see
    /// [`TeamWatcher::start`]).
    pub async fn start(&self) -> Result<PullOutcome> {
        self.store.with_write_lock(self.watcher.start()).await?
    }

    /// Pull now, under the store's lock.
    pub async fn pull(&self) -> Result<PullOutcome> {
        self.store.with_write_lock(self.watcher.pull()).await?
    }

    /// Push now (reads only; no lock).
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
mod tests {
    use super::*;
    use crate::error::HostError;
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

    /// A server with nothing, which notes whether the store's lock file exists at each request.
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
                status: 404,
                headers: Vec::new(),
                body: String::new(),
            })
        }
    }

    #[test]
    fn pulls_hold_the_store_lock() {
        let fs = MemFs::new();
        let store = Store::new(
            &fs,
            Clock0,
            NoTelemetry,
            "/m/",
            WriteMode::Auto,
            StoreConfig::default(),
        );
        let probe = Probe {
            fs: &fs,
            locked: RefCell::new(Vec::new()),
        };
        let config = SyncConfig::new("https://h.example", "acme/app", "/m/team/");
        let sync = StoreSync::for_store(&store, &probe, config, SyncState::default());
        assert!(block_on(sync.start()).is_ok());
        assert!(block_on(sync.pull()).is_ok());
        let during_pulls = probe.locked.take();
        assert!(!during_pulls.is_empty());
        assert!(during_pulls.iter().all(|&held| held), "{during_pulls:?}");
        // Released afterwards.
        assert!(block_on(fs.read_file(&format!("/m/{LOCK_FILE_NAME}"))).is_err());
    }
}
