//! Consolidation as a reviewable changeset (reference §13, §8.8; design §6).
//!
//! The reference lets a background agent rewrite the memory directory directly, and that has
//! deleted users' files without asking. Here [`crate::Memdir::consolidate`] only proposes: it
//! checks the gates (hours and sessions since the last run), takes the `.consolidate-lock`, asks
//! the host LLM for JSON operations over the files it is shown, and returns a [`Changeset`]:
//! files to create, update (with the text they must still have) and delete (likewise), and the
//! new index. The host shows it; [`crate::Memdir::apply_changeset`] writes it with an undo
//! journal; [`crate::Memdir::undo_changeset`] restores the directory exactly. Nothing is ever
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
