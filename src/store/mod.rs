//! Reading and writing a memory directory: the index as the model gets it, the scan, save /
//! update / delete with the index kept in step, the daily log. Every write is an atomic replace
//! under a directory lock (see [`lock`]), and the `MEMORY.md` read-modify-write happens inside
//! that lock, so two writers lose nothing.
//!
//! All methods are `impl` blocks on [`crate::Memdir`]; the pure helpers (file names, line heads)
//! live in small modules of their own.
// OWNER: store helper.

mod edit;
pub mod head;
mod index;
mod journal;
mod list;
pub mod lock;
mod log;
pub mod names;
mod save;
mod scan;
mod types;
mod write;

pub use log::log_file_name;
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
