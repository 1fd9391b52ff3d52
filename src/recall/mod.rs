//! Recall: which memories help with the user's query, and how they are shown to the model.
//!
//! * [`selector`]: the request to the host's LLM and the strict parsing of its reply (pure).
//! * [`ranker`]: the built-in lexical ranker (incremental BM25F index, calibrated cut-off,
//!   `explain`), used when there is no LLM, when it fails,
//!   and to pre-filter a directory larger than the selector budget (pure).
//! * [`find`]: [`Recaller::find_relevant`], which sequences scan, selection, timeout, abort, fallback.
//! * [`index`]: the whole-directory index a `Memdir` keeps between recalls (pure).
//! * [`surface`]: the text a selected memory is shown with (caps, truncation note, header).
//! * [`session`]: turn-loop helpers (single-word queries, the per-session budget).
//! * [`abort`]: [`AbortFlag`], the caller's cancellation.

pub mod abort;
pub mod embed;
pub mod find;
pub mod index;
pub mod index_cache;
pub mod ranker;
pub mod selector;
pub mod semantic;
pub mod session;
pub mod surface;
mod tokenize;

pub use abort::AbortFlag;
pub use find::{
    surface_memories, AnsweredBy, FindOptions, LexicalWhy, Recall, RecallOutcome, RecallWhy,
    RecalledMemory, Recaller, SemanticWhy, TermWhy,
};
pub use index::{LiveIndex, RecallIndex, ScoredMemory};
pub use ranker::{rank_memories, Explained, RankedMemory, RankerDoc, RankerIndex, RankerParams};
pub use selector::{
    build_selector_request, parse_selector_reply, try_parse_selector_reply, SELECTOR_SCHEMA,
};
pub use session::{should_recall, SessionBudget};
pub use surface::{render_surfaced, surface_text, SurfacedMemory};

/// Recall tuning (a [`Recaller`]'s).
///
/// ```
/// let c = memdir::recall::RecallConfig::default();
/// assert_eq!((c.selector_budget, c.timeout_ms, c.fallback_to_lexical), (200, 10_000, true));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RecallConfig {
    /// Most candidates put in front of the LLM; a larger directory is pre-filtered by the ranker.
    pub selector_budget: usize,
    /// How long a whole recall may take, in milliseconds: one deadline for the index's I/O and
    /// then the LLM or embedder (which gets what is left); past it, the ranker answers.
    pub timeout_ms: u32,
    /// When the LLM fails, times out or answers garbage, answer with the ranker instead of nothing.
    pub fallback_to_lexical: bool,
    /// The ranker's weights and thresholds.
    pub ranker: RankerParams,
    /// How cosine and the ranker's score are fused when an embedder is configured.
    pub fusion: semantic::FusionParams,
}

impl Default for RecallConfig {
    fn default() -> Self {
        RecallConfig {
            selector_budget: 200,
            timeout_ms: 10_000,
            fallback_to_lexical: true,
            ranker: RankerParams::default(),
            fusion: semantic::FusionParams::default(),
        }
    }
}
