//! Extraction: memories that come in without being asked for.
//!
//! After a turn, the host hands the conversation to an [`Extractor`]. It decides, without I/O,
//! whether to run ([`Extractor::new_messages`], [`wrote_memories_directly`], the every-N-turns
//! throttle, coalescing), asks the host LLM for a JSON list of operations (create, update,
//! delete) with the extraction prompt and the manifest of existing memories, checks every
//! operation ([`validate_operations`]: file names, types, secrets, a cap on their number), and
//! applies the survivors through the store, so the write mode, the directory lock and the index
//! all apply as for any other write.
//!
//! * Off / read-only: refused with `WRITE_FORBIDDEN` before anything is read.
//! * Confirm: the operations come back as [`crate::store::Proposal`]s; nothing is written.
//! * Auto: written.
//!
//! Rejected operations are reported with a code and a reason of our own wording; neither ever
//! quotes what the model sent, so a secret in a hostile reply is never echoed.
//!
//! ```
//! use memdir::extract::{ConversationMessage, Extractor};
//! let extractor = Extractor::new(2);
//! let turn = [ConversationMessage::user("I prefer tabs").with_id("u1")];
//! assert_eq!(extractor.new_messages(&turn).len(), 1);
//! extractor.advance_cursor(&turn);
//! assert!(extractor.new_messages(&turn).is_empty());
//! ```

mod ops;
mod run;
mod schedule;

pub use ops::{
    parse_operations, strip_code_fence, validate_operations, MemoryOperation, OperationKind,
    ParsedReply, RejectedOperation, ValidatedOperation, MAX_OPERATIONS, MAX_REPLY_BYTES,
};
pub(crate) use run::ask;
pub use run::{ExtractContext, ExtractOptions, ExtractOutcome, ExtractStatus, SkipReason};
pub use schedule::{wrote_memories_directly, Cursor, Extractor};

use crate::host::Role;
use serde::Serialize;

/// A tool call inside a conversation message, as far as extraction cares: its name and the file
/// it wrote, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUse {
    /// The tool's name as the host calls it (`Write`, `Edit` …).
    pub name: String,
    /// The `file_path` argument, when the tool has one.
    pub file_path: Option<String>,
}

/// One message of the conversation handed to extraction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationMessage {
    /// Who said it.
    pub role: Role,
    /// Its text (tool calls and results may be left out or summarised by the host).
    pub text: String,
    /// A stable id (a uuid), used as the extraction cursor; without ids the cursor counts
    /// messages.
    pub id: Option<String>,
    /// Tool calls the message made.
    pub tool_uses: Vec<ToolUse>,
}

impl ConversationMessage {
    /// A user message with `text`.
    pub fn user(text: impl Into<String>) -> Self {
        ConversationMessage {
            role: Role::User,
            text: text.into(),
            id: None,
            tool_uses: Vec::new(),
        }
    }

    /// An assistant message with `text`.
    pub fn assistant(text: impl Into<String>) -> Self {
        ConversationMessage {
            role: Role::Assistant,
            ..ConversationMessage::user(text)
        }
    }

    /// The same message with an id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The same message with a tool call `name` on `file_path`.
    pub fn with_tool_use(mut self, name: impl Into<String>, file_path: impl Into<String>) -> Self {
        self.tool_uses.push(ToolUse {
            name: name.into(),
            file_path: Some(file_path.into()),
        });
        self
    }
}
