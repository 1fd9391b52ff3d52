//! Consolidation as a reviewable changeset.
//!
//! The reference lets a background agent rewrite the memory directory directly, and that has
//! deleted users' files without asking. Here [`Consolidator::consolidate`] only proposes: it
//! checks the gates (hours and sessions since the last run), takes the `.consolidate-lock`, asks
//! the host LLM for JSON operations over the files it is shown, and returns a [`Changeset`]:
//! files to create, update (with the text they must still have) and delete (likewise), and the
//! new index. The host shows it; [`Consolidator::apply_changeset`] writes it with an undo
//! journal; [`Consolidator::undo_changeset`] restores the directory exactly. Nothing is ever
//! deleted that a changeset does not name with its current text.
//!
//! ```
//! use memdir::consolidate::{build_changeset, Changeset};
//! let cs = build_changeset(r#"{"operations":[]}"#, &[], None, false).unwrap();
//! assert!(cs.is_empty());
//! ```

mod apply;
mod changeset;
mod gates;
mod lock;
mod prompt;
mod run;

pub use apply::{ApplyReport, UNDO_JOURNAL_NAME};
pub use changeset::{
    build_changeset, check_changeset_file, Changeset, CurrentFile, FileCreate, FileDelete,
    FileUpdate, IndexChange,
};
pub use gates::{
    evaluate_gates, ConsolidationGates, GateDecision, SessionInfo, DEFAULT_MIN_HOURS,
    DEFAULT_MIN_SESSIONS,
};
pub use lock::{
    format_lock_body, parse_lock_body, ConsolidationLease, LockBody, LockFile,
    CONSOLIDATE_LOCK_NAME, HOLDER_STALE_MS,
};
pub use prompt::{
    build_consolidation_request_prompt, directory_message, ShownFile, CONSOLIDATE_RESPONSE_SCHEMA,
    MAX_FILE_SHOWN_BYTES, MAX_SHOWN_BYTES,
};
pub use run::{ConsolidateOptions, ConsolidateOutcome, ConsolidateSkip};

use crate::host::{Clock, FileSystem, Llm, NoLlm, Telemetry};
use crate::store::Store;

/// Consolidation over a borrowed [`Store`]: the `.consolidate-lock`, the model's proposal as a
/// [`Changeset`], applying it with an undo journal, and undoing it.
///
/// ```
/// use memdir::consolidate::Consolidator;
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoLlm, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 5.0 } async fn sleep(&self, _: u32) {} }
/// let store = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let c = Consolidator::new(&store, None::<&NoLlm>, false);
/// block_on(c.record_consolidation()).unwrap();
/// assert_eq!(block_on(c.last_consolidated_at()).unwrap(), 5.0);
/// ```
pub struct Consolidator<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm = NoLlm> {
    store: &'a Store<F, C, T>,
    llm: Option<&'a L>,
    /// Keep `MEMORY.md` out of it (the prompt's `skip_index`).
    skip_index: bool,
}

impl<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm> Consolidator<'a, F, C, T, L> {
    /// Consolidation of `store`'s private memory with `llm` (needed only by
    /// [`Consolidator::consolidate`]); `skip_index` as the prompt's setting.
    pub fn new(store: &'a Store<F, C, T>, llm: Option<&'a L>, skip_index: bool) -> Self {
        Consolidator {
            store,
            llm,
            skip_index,
        }
    }
}
