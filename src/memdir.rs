//! `Memdir`: one memory directory over host traits. The methods live next to what they do
//! (`store/` for reads and writes, `recall/` for recall and surfacing); this file holds the state.
// OWNER: store helper (the struct); recall helper adds an `impl` block in `recall/`.

use crate::entrypoint::TruncateOptions;
use crate::host::{Clock, FileSystem, Llm, NoLlm, NoTelemetry, Telemetry};
use std::cell::Cell;

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

/// Tuning of the read/write paths (`store/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreConfig {
    /// Caps applied to `MEMORY.md` when it is read for the model and measured after a write.
    pub index_caps: TruncateOptions,
    /// How long a writer waits for the directory lock before failing with `LOCK_TIMEOUT`.
    pub lock_timeout_ms: u32,
    /// A lock file whose acquisition time is older than this is broken (its holder died).
    pub lock_stale_ms: u32,
    /// Refuse secrets in private memory and the daily log too (team memory is always checked).
    pub guard_private_secrets: bool,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            index_caps: TruncateOptions::default(),
            lock_timeout_ms: DEFAULT_LOCK_TIMEOUT_MS,
            lock_stale_ms: DEFAULT_LOCK_STALE_MS,
            guard_private_secrets: false,
        }
    }
}

/// Configuration of a [`Memdir`].
#[derive(Clone, Debug, PartialEq)]
pub struct MemdirConfig {
    /// The memory directory, absolute, ending with exactly one `/`.
    pub dir: String,
    /// Write policy.
    pub write_mode: WriteMode,
    /// What the memory prompt looks like (mode, tool names, overrides …).
    pub prompt: crate::prompt::PromptConfig,
    /// Recall tuning (timeout, selector budget, fallback …).
    pub recall: crate::recall::RecallConfig,
    /// Read/write tuning: index caps, lock timeout and staleness.
    pub store: StoreConfig,
}

impl MemdirConfig {
    /// A configuration for `dir` with every other setting at its default. Trailing slashes are
    /// collapsed to exactly one.
    ///
    /// ```
    /// let c = memdir::MemdirConfig::new("/home/u/memory//");
    /// assert_eq!(c.dir, "/home/u/memory/");
    /// assert_eq!(c.write_mode, memdir::WriteMode::Auto);
    /// ```
    pub fn new(dir: impl Into<String>) -> Self {
        let dir: String = dir.into();
        let trimmed = dir.trim_end_matches('/');
        MemdirConfig {
            dir: format!("{trimmed}/"),
            write_mode: WriteMode::default(),
            prompt: crate::prompt::PromptConfig::default(),
            recall: crate::recall::RecallConfig::default(),
            store: StoreConfig::default(),
        }
    }
}

/// A memory directory over a host filesystem, LLM, telemetry sink and clock.
pub struct Memdir<F: FileSystem, C: Clock, L: Llm = NoLlm, T: Telemetry = NoTelemetry> {
    pub(crate) fs: F,
    pub(crate) clock: C,
    pub(crate) llm: Option<L>,
    pub(crate) telemetry: T,
    pub(crate) config: MemdirConfig,
    /// Counter behind temp-file names and lock-holder ids.
    pub(crate) id_counter: Cell<u64>,
    /// True while a write of this instance holds the directory lock (in-process exclusion).
    pub(crate) writing: Cell<bool>,
}

impl<F: FileSystem, C: Clock, L: Llm, T: Telemetry> Memdir<F, C, L, T> {
    /// A memdir over `fs` rooted at `config.dir`.
    pub fn new(fs: F, clock: C, llm: Option<L>, telemetry: T, config: MemdirConfig) -> Self {
        Memdir {
            fs,
            clock,
            llm,
            telemetry,
            config,
            id_counter: Cell::new(0),
            writing: Cell::new(false),
        }
    }

    /// The memory directory (ends with `/`).
    pub fn dir(&self) -> &str {
        &self.config.dir
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

    /// The configuration.
    pub fn config(&self) -> &MemdirConfig {
        &self.config
    }
}
