//! Reading and writing a memory directory: the index as the model gets it, the scan, save /
//! update / delete with the index kept in step, the daily log. Every write is an atomic replace
//! under a directory lock (see [`lock`]), and the `MEMORY.md` read-modify-write happens inside
//! that lock, so two writers lose nothing.
//!
//! [`Store`] holds the directory, the host filesystem, clock and telemetry, the write mode, the
//! tuning and the lock state; its methods are spread over the modules below by what they do
//! (`scan`, `index`, `save`, `edit`, `list`, `log`, `lock`, `journal`, `write`). Its fields are
//! private to this folder: features read them through the accessors. The pure helpers (file
//! names, line heads) live in small modules of their own.

mod contain;
pub mod deadline;
mod edit;
pub mod head;
mod index;
mod journal;
mod list;
pub mod listing;
pub mod lock;
mod log;
pub mod names;
mod save;
mod scan;
mod types;
mod write;

use crate::entrypoint::TruncateOptions;
use crate::host::{Clock, FileSystem, NoTelemetry, Telemetry};
use std::cell::Cell;

pub use crate::library_files::{
    library_file, library_file_or_its_temp, LibraryFile, LibraryFileKind, LIBRARY_FILES,
};
pub use contain::EVENT_READ_OUTSIDE;
pub use log::log_file_name;
pub use scan::{ScanPage, EVENT_SCAN_CAPPED, MAX_SCAN_DEPTH, MAX_SCAN_DIRS, MAX_SCAN_ENTRIES};
pub use types::{
    DeletedMemory, IndexView, IndexWarning, ListedMemory, LocalDate, MemoryChanges, Proposal,
    SaveInput, SaveOutcome, SavedMemory, Scope,
};

/// Directory (relative to the memory dir) holding team memory.
pub const TEAM_DIR: &str = "team/";
/// Directory (relative to the memory dir) holding the daily logs.
pub const LOGS_DIR: &str = "logs/";
/// The lock file used when the host has `createExclusive` but no `lock`.
pub const LOCK_FILE_NAME: &str = ".memdir.lock";

/// How much the library may write (enforced on every write path).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteMode {
    /// Memory disabled: no reads for the prompt, no writes.
    Off,
    /// Reads only; every write is refused.
    ReadOnly,
    /// Writes become proposals the host approves.
    Confirm,
    /// Writes go through.
    #[default]
    Auto,
}

/// Default time a writer waits for the directory lock, in milliseconds.
pub const DEFAULT_LOCK_TIMEOUT_MS: u32 = 10_000;
/// Default age after which a lock file is considered abandoned, in milliseconds.
pub const DEFAULT_LOCK_STALE_MS: u32 = 30_000;
/// Default bound on one host filesystem call of the write path, in milliseconds.
pub const DEFAULT_HOST_CALL_TIMEOUT_MS: u32 = 10_000;

/// Tuning of the read/write paths.
///
/// ```
/// let c = memdir::store::StoreConfig::default();
/// assert_eq!((c.lock_timeout_ms, c.lock_stale_ms), (10_000, 30_000));
/// assert_eq!(c.host_call_timeout_ms, 10_000);
/// assert!(c.guard_private_secrets);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreConfig {
    /// Caps applied to `MEMORY.md` when it is read for the model and measured after a write.
    pub index_caps: TruncateOptions,
    /// How long a writer waits for the directory lock before failing with `LOCK_TIMEOUT`.
    pub lock_timeout_ms: u32,
    /// A lock file whose acquisition time is older than this is broken (its holder died).
    pub lock_stale_ms: u32,
    /// How long one host filesystem call of a write (and of the lock) may take before the
    /// write fails with `TIMEOUT` and gives the lock back; 0 waits forever. Default 10 s.
    pub host_call_timeout_ms: u32,
    /// What a save or update does when it would leave `MEMORY.md` over its caps (measured on
    /// the content the model loads): refuse it with `INDEX_OVER_CAP` (the default, as the
    /// reference does since 2.1.210) or write it and report an `index_warning`.
    pub index_over_cap: IndexOverCap,
    /// Refuse secrets in private memory (memory files, `MEMORY.md`, the daily log) as well as
    /// in team memory, which is always checked. On by default; `false` lets them through.
    pub guard_private_secrets: bool,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            index_caps: TruncateOptions::default(),
            lock_timeout_ms: DEFAULT_LOCK_TIMEOUT_MS,
            lock_stale_ms: DEFAULT_LOCK_STALE_MS,
            host_call_timeout_ms: DEFAULT_HOST_CALL_TIMEOUT_MS,
            guard_private_secrets: true,
            index_over_cap: IndexOverCap::Error,
        }
    }
}

/// What a write does when it would leave `MEMORY.md` over its caps ([`StoreConfig::index_over_cap`]).
///
/// ```
/// use memdir::store::{IndexOverCap, StoreConfig};
/// assert_eq!(StoreConfig::default().index_over_cap, IndexOverCap::Error);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexOverCap {
    /// Refuse the write with `INDEX_OVER_CAP`; nothing is written.
    #[default]
    Error,
    /// Write the index whole and report an `index_warning`.
    Warn,
}

/// One memory directory over a host filesystem, clock and telemetry sink: every read and write
/// of the directory, the write mode that governs them, and the directory lock.
///
/// The features (recall, prompt loading, lint, the memory tool, extraction, consolidation, team
/// sync) borrow a `Store`; [`crate::Memdir`] bundles one with their settings and the LLM.
///
/// ```
/// use memdir::store::{SaveInput, Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let store = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let input = SaveInput {
///     name: "Role".into(),
///     description: "Senior Go dev".into(),
///     memory_type: "user".into(),
///     body: "Prefers terse answers.".into(),
///     ..SaveInput::default()
/// };
/// block_on(store.save(input)).unwrap();
/// assert_eq!(block_on(store.scan()).unwrap().len(), 1);
/// ```
pub struct Store<F: FileSystem, C: Clock, T: Telemetry = NoTelemetry> {
    fs: F,
    clock: C,
    telemetry: T,
    /// The memory directory, absolute, ending with exactly one `/`.
    dir: String,
    write_mode: WriteMode,
    config: StoreConfig,
    /// Counter behind temp-file names and lock-holder ids.
    id_counter: Cell<u64>,
    /// The in-process writer queue (in-process exclusion) and the temp-file sweep's clock.
    lock_state: lock::LockState,
}

impl<F: FileSystem, C: Clock, T: Telemetry> Store<F, C, T> {
    /// A store over `fs` rooted at `dir` (absolute, ending with `/`; see
    /// [`crate::MemdirConfig::new`] for the normalization).
    pub fn new(
        fs: F,
        clock: C,
        telemetry: T,
        dir: impl Into<String>,
        write_mode: WriteMode,
        config: StoreConfig,
    ) -> Self {
        Store {
            fs,
            clock,
            telemetry,
            dir: dir.into(),
            write_mode,
            config,
            id_counter: Cell::new(0),
            lock_state: lock::LockState::default(),
        }
    }

    /// [`Store::new`] for a directory that passes [`crate::paths::check_memory_dir`]: an
    /// empty, relative or root directory, or one with a NUL byte, is refused with
    /// `INVALID_INPUT` (a store built with [`Store::new`] on such a directory refuses every
    /// write the same way).
    ///
    /// ```
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{MemFs, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let err = Store::try_new(MemFs::new(), Clock0, NoTelemetry, "", WriteMode::Auto, StoreConfig::default());
    /// assert_eq!(err.err().unwrap().code, memdir::Code::InvalidInput);
    /// ```
    pub fn try_new(
        fs: F,
        clock: C,
        telemetry: T,
        dir: impl Into<String>,
        write_mode: WriteMode,
        config: StoreConfig,
    ) -> crate::error::Result<Self> {
        let store = Store::new(fs, clock, telemetry, dir, write_mode, config);
        store.check_dir()?;
        Ok(store)
    }

    /// The directory check of [`Store::try_new`], repeated before each write.
    pub(crate) fn check_dir(&self) -> crate::error::Result<()> {
        crate::paths::check_memory_dir(&self.dir)
    }

    /// The memory directory (ends with `/`).
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The host filesystem.
    pub fn fs(&self) -> &F {
        &self.fs
    }

    /// The host clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The host telemetry sink.
    pub fn telemetry(&self) -> &T {
        &self.telemetry
    }

    /// The write mode.
    pub fn write_mode(&self) -> WriteMode {
        self.write_mode
    }

    /// The read/write tuning.
    pub fn config(&self) -> &StoreConfig {
        &self.config
    }
}

impl<F: FileSystem, C: Clock, T: Telemetry> AsRef<Store<F, C, T>> for Store<F, C, T> {
    fn as_ref(&self) -> &Store<F, C, T> {
        self
    }
}
