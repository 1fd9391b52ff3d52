//! Inputs and outcomes of the store's methods.

use crate::index_entry::IndexEntry;
use serde::{Deserialize, Serialize};

/// Which memory a write goes to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The memory directory itself (`<dir>MEMORY.md`).
    #[default]
    Private,
    /// Shared team memory in `<dir>team/` with its own `team/MEMORY.md`.
    Team,
}

/// What [`crate::store::Store::save`] writes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SaveInput {
    /// Short title; the index link text and the `name` field. One line, non-empty.
    pub name: String,
    /// One-line summary; the index hook and the `description` field. Non-empty.
    pub description: String,
    /// `user`, `feedback`, `project` or `reference` (exactly).
    #[serde(rename = "type")]
    pub memory_type: String,
    /// The markdown body after the frontmatter.
    pub body: String,
    /// File name relative to the scope's directory (`x.md`, `sub/x.md`); derived from the name
    /// and type when `None`.
    pub file: Option<String>,
    /// Private or team memory.
    pub scope: Scope,
    /// Do not touch `MEMORY.md` (hosts that recall without an index).
    pub skip_index: bool,
    /// Overwrite the memory when its file exists (given or derived) instead of failing with
    /// `ALREADY_EXISTS`: the same file and index entry, updated in place.
    pub replace: bool,
}

/// Field changes for [`crate::store::Store::update`]; `None` keeps the current value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryChanges {
    /// New `name` (also the index title).
    pub name: Option<String>,
    /// New `description` (also the index hook).
    pub description: Option<String>,
    /// New `type`.
    #[serde(rename = "type")]
    pub memory_type: Option<String>,
    /// New body.
    pub body: Option<String>,
    /// Do not touch `MEMORY.md`.
    pub skip_index: bool,
}

/// How far a new `MEMORY.md` goes past its caps (nothing is cut on disk; the model would only
/// see part of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexWarning {
    /// Lines of the trimmed index.
    pub line_count: usize,
    /// UTF-16 units of the trimmed index.
    pub byte_count: usize,
    /// Over the line cap.
    pub was_line_truncated: bool,
    /// Over the size cap.
    pub was_byte_truncated: bool,
}

/// A write that went through.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedMemory {
    /// Path relative to the memory directory, as [`crate::store::Store::scan`] names it
    /// (`team/x.md` for team memory).
    pub file: String,
    /// Absolute path.
    pub path: String,
    /// Which memory it is in.
    pub scope: Scope,
    /// True when the file did not exist before.
    pub created: bool,
    /// Set when the new index is over its caps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_warning: Option<IndexWarning>,
}

/// A delete that went through.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletedMemory {
    /// Path relative to the memory directory.
    pub file: String,
    /// The memory file existed and was removed.
    pub removed_file: bool,
    /// An index entry pointed at it and was removed.
    pub removed_entry: bool,
}

/// A write held back for the host's approval (write mode `confirm`); pass it to
/// [`crate::store::Store::apply_proposal`] to carry it out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", try_from = "ProposalIn")]
pub enum Proposal {
    /// A new or replaced memory.
    Save(SaveInput),
    /// Changes to an existing memory (`file` relative to the memory directory).
    Update {
        /// The memory file.
        file: String,
        /// What changes.
        changes: MemoryChanges,
    },
    /// Removing a memory (`file` relative to the memory directory).
    Delete {
        /// The memory file.
        file: String,
    },
}

/// A [`Proposal`] as read: every variant's fields side by side, checked against `kind` in
/// `TryFrom` (a flat struct reads with far less code than an internally tagged enum).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProposalIn {
    kind: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default, rename = "type")]
    memory_type: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    scope: Scope,
    #[serde(default)]
    skip_index: bool,
    #[serde(default)]
    replace: bool,
    #[serde(default)]
    changes: Option<MemoryChanges>,
}

impl TryFrom<ProposalIn> for Proposal {
    type Error = String;

    fn try_from(p: ProposalIn) -> Result<Self, String> {
        let file = |file: Option<String>| file.ok_or_else(|| "missing field `file`".to_owned());
        Ok(match p.kind.as_str() {
            "save" => Proposal::Save(SaveInput {
                name: p.name,
                description: p.description,
                memory_type: p.memory_type,
                body: p.body,
                file: p.file,
                scope: p.scope,
                skip_index: p.skip_index,
                replace: p.replace,
            }),
            "update" => Proposal::Update {
                file: file(p.file)?,
                changes: p
                    .changes
                    .ok_or_else(|| "missing field `changes`".to_owned())?,
            },
            "delete" => Proposal::Delete {
                file: file(p.file)?,
            },
            other => {
                return Err(format!(
                    "unknown variant `{other}`, expected one of `save`, `update`, `delete`"
                ))
            }
        })
    }
}

/// The result of save / update / delete.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum SaveOutcome {
    /// Written (save, update).
    Saved(SavedMemory),
    /// Removed (delete).
    Deleted(DeletedMemory),
    /// Not written: write mode `confirm` turned it into a proposal.
    Proposed(Proposal),
}

/// `MEMORY.md` as the model gets it (frontmatter and block comments stripped, caps applied).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexView {
    /// Absolute path of the index.
    pub path: String,
    /// False when the file is missing (or is not a file); everything else is then empty.
    pub exists: bool,
    /// The text for the model, with the truncation warning when cut.
    pub content: String,
    /// Lines before the caps.
    pub line_count: usize,
    /// UTF-16 units before the caps.
    pub byte_count: usize,
    /// Over the line cap.
    pub was_line_truncated: bool,
    /// Over the size cap.
    pub was_byte_truncated: bool,
}

/// One index entry and whether its file exists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedMemory {
    /// The entry as written in the index (its `file` relative to that index).
    pub entry: IndexEntry,
    /// The file relative to the memory directory (`team/x.md` for team entries).
    pub file: String,
    /// Which index it is in.
    pub scope: Scope,
    /// The file exists and is a regular file. False for entries that point outside the scope.
    pub exists: bool,
}

/// A calendar date in the host's local time (the daily log is named by local date).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LocalDate {
    /// Four-digit year (0–9999).
    pub year: u16,
    /// Month, 1–12.
    pub month: u8,
    /// Day of month, 1–31.
    pub day: u8,
}
