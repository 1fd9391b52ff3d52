//! `Memdir`: one memory directory over host traits. The methods live next to what they do
//! (`store/` for reads and writes, `recall/` for recall and surfacing); this file holds the state.
// OWNER: store helper (the struct); recall helper adds an `impl` block in `recall/`.

use crate::host::{Clock, FileSystem, Llm, NoLlm, NoTelemetry, Telemetry};

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
}

/// A memory directory over a host filesystem, LLM, telemetry sink and clock.
pub struct Memdir<F: FileSystem, C: Clock, L: Llm = NoLlm, T: Telemetry = NoTelemetry> {
    pub(crate) fs: F,
    pub(crate) clock: C,
    pub(crate) llm: Option<L>,
    pub(crate) telemetry: T,
    pub(crate) config: MemdirConfig,
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
}
