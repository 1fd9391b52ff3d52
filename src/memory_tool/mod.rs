//! A backend for Anthropic's memory tool (`memory_20250818`): its commands (`view`, `create`,
//! `str_replace`, `insert`, `delete`, `rename`) carried out over the memory directory, so a host
//! can hand the same memory to a model through that tool.
//!
//! Paths are `/memories/…` and map onto the memory directory ([`resolve_tool_path`]: traversal
//! in any disguise is refused with a path error code). Writes take the directory lock, are
//! atomic, refuse to follow a symlink out of the directory, obey the write mode (`off` and
//! `read-only` refuse with `WRITE_FORBIDDEN`, `confirm` turns them into
//! [`MemoryToolOutcome::Proposed`], carried out later by [`MemoryTool::apply`]), and
//! content bound for `team/` goes through the secret guard. `view` is refused in `off` mode too
//! (memory is disabled there).
//!
//! What the model reads is what the Anthropic TS SDK's local-filesystem backend answers (listing
//! header, sizes such as `55B`/`4K`, six-column line numbers, edit snippets, error texts), and
//! the root exists from the first command on. Beyond it, a memory file (`.md`, not an index, not
//! under `logs/`) written through the tool becomes a proper memory: `create` gives a file
//! without frontmatter one derived from its name (`feedback_testing.md` → name `testing`, type
//! `feedback`), and every write, rename and delete keeps the scope's `MEMORY.md` entry in step.
//!
//! ```
//! use memdir::memory_tool::MemoryToolCommand;
//! let cmd: MemoryToolCommand = serde_yaml::from_str(
//!     r#"{"command":"str_replace","path":"/memories/a.md","old_str":"x","new_str":"y"}"#,
//! ).unwrap();
//! assert_eq!(cmd.name(), "str_replace");
//! ```

mod commands;
mod path;

pub use path::{resolve_tool_path, tool_path, MEMORIES_ROOT};

use crate::error::Result;
use crate::host::{Clock, FileSystem, Telemetry};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// The tool's type string in the Messages API.
pub const MEMORY_TOOL_TYPE: &str = "memory_20250818";
/// The tool's name.
pub const MEMORY_TOOL_NAME: &str = "memory";
/// Largest file the tool writes, in UTF-8 bytes.
pub const MAX_TOOL_FILE_BYTES: usize = 250_000;

/// One command of the memory tool, as the model sends it (`{"command": "view", "path": …}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case", try_from = "CommandIn")]
pub enum MemoryToolCommand {
    /// Show a directory (two levels, with sizes) or a file (with line numbers).
    View {
        /// The path.
        path: String,
        /// 1-based first and last line; a last line of -1 means the end.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view_range: Option<[i64; 2]>,
    },
    /// Create a file (refused when it exists, as in the reference backend).
    Create {
        /// The path.
        path: String,
        /// Its text.
        file_text: String,
    },
    /// Replace the one occurrence of `old_str`.
    StrReplace {
        /// The path.
        path: String,
        /// Text that must occur exactly once.
        old_str: String,
        /// Its replacement.
        new_str: String,
    },
    /// Insert text after a line (0 = at the start).
    Insert {
        /// The path.
        path: String,
        /// The line after which to insert.
        insert_line: i64,
        /// The text.
        insert_text: String,
    },
    /// Delete a file, or every file below a directory.
    Delete {
        /// The path.
        path: String,
    },
    /// Rename a file.
    Rename {
        /// The current path.
        old_path: String,
        /// The new path (must not exist).
        new_path: String,
    },
}

/// A [`MemoryToolCommand`] as read: every variant's fields side by side, checked against
/// `command` in `TryFrom` (a flat struct reads with far less code than a tagged enum).
#[derive(Deserialize)]
struct CommandIn {
    command: String,
    path: Option<String>,
    view_range: Option<[i64; 2]>,
    file_text: Option<String>,
    old_str: Option<String>,
    new_str: Option<String>,
    insert_line: Option<i64>,
    insert_text: Option<String>,
    old_path: Option<String>,
    new_path: Option<String>,
}

fn required<T>(value: Option<T>, field: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("missing field `{field}`"))
}

impl TryFrom<CommandIn> for MemoryToolCommand {
    type Error = String;

    fn try_from(c: CommandIn) -> Result<Self, String> {
        Ok(match c.command.as_str() {
            "view" => MemoryToolCommand::View {
                path: required(c.path, "path")?,
                view_range: c.view_range,
            },
            "create" => MemoryToolCommand::Create {
                path: required(c.path, "path")?,
                file_text: required(c.file_text, "file_text")?,
            },
            "str_replace" => MemoryToolCommand::StrReplace {
                path: required(c.path, "path")?,
                old_str: required(c.old_str, "old_str")?,
                new_str: required(c.new_str, "new_str")?,
            },
            "insert" => MemoryToolCommand::Insert {
                path: required(c.path, "path")?,
                insert_line: required(c.insert_line, "insert_line")?,
                insert_text: required(c.insert_text, "insert_text")?,
            },
            "delete" => MemoryToolCommand::Delete {
                path: required(c.path, "path")?,
            },
            "rename" => MemoryToolCommand::Rename {
                old_path: required(c.old_path, "old_path")?,
                new_path: required(c.new_path, "new_path")?,
            },
            other => {
                return Err(format!(
                    "unknown variant `{other}`, expected one of `view`, `create`, `str_replace`, `insert`, `delete`, `rename`"
                ))
            }
        })
    }
}

impl MemoryToolCommand {
    /// The command's name (`view`, `create` …).
    pub fn name(&self) -> &'static str {
        match self {
            MemoryToolCommand::View { .. } => "view",
            MemoryToolCommand::Create { .. } => "create",
            MemoryToolCommand::StrReplace { .. } => "str_replace",
            MemoryToolCommand::Insert { .. } => "insert",
            MemoryToolCommand::Delete { .. } => "delete",
            MemoryToolCommand::Rename { .. } => "rename",
        }
    }

    /// True for every command but `view`.
    pub fn writes(&self) -> bool {
        !matches!(self, MemoryToolCommand::View { .. })
    }
}

/// What a command did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum MemoryToolOutcome {
    /// Carried out; `text` is the tool result for the model.
    Done {
        /// The tool result.
        text: String,
    },
    /// `confirm` mode: held for the host's approval.
    Proposed {
        /// The tool result telling the model the change awaits approval.
        text: String,
        /// The command to pass to [`MemoryTool::apply`] once approved.
        command: MemoryToolCommand,
    },
}

impl MemoryToolOutcome {
    /// The tool result text.
    pub fn text(&self) -> &str {
        match self {
            MemoryToolOutcome::Done { text } | MemoryToolOutcome::Proposed { text, .. } => text,
        }
    }
}

/// Run one memory-tool command and return the tool result text (in `confirm` mode, for a
/// write, a note that it awaits approval). Errors are for the model too: their messages say
/// what was wrong without echoing file contents. `store` is a [`Store`] or a [`crate::Memdir`].
///
/// ```
/// use memdir::memory_tool::{handle_memory_command, MemoryToolCommand};
/// use memdir::{future::block_on, MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let m = Memdir::new(MemFs::new(), Clock0, None::<NoLlm>, NoTelemetry, MemdirConfig::new("/m/"));
/// let create = MemoryToolCommand::Create { path: "/memories/a.md".into(), file_text: "hi\n".into() };
/// block_on(handle_memory_command(&m, create)).unwrap();
/// let view = MemoryToolCommand::View { path: "/memories/a.md".into(), view_range: None };
/// assert!(block_on(handle_memory_command(m.store(), view)).unwrap().contains("hi"));
/// ```
pub async fn handle_memory_command<F: FileSystem, C: Clock, T: Telemetry>(
    store: &impl AsRef<Store<F, C, T>>,
    command: MemoryToolCommand,
) -> Result<String> {
    let tool = MemoryTool::new(store.as_ref());
    Ok(tool.run(command).await?.text().to_owned())
}

/// The memory tool over a borrowed [`Store`]: [`MemoryTool::run`] answers the model's command,
/// [`MemoryTool::apply`] carries out one the host approved.
///
/// ```
/// use memdir::memory_tool::{MemoryTool, MemoryToolCommand};
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let store = Store::new(MemFs::new(), Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let create = MemoryToolCommand::Create { path: "/memories/a.md".into(), file_text: "hi\n".into() };
/// block_on(MemoryTool::new(&store).run(create)).unwrap();
/// use memdir::FileSystem;
/// assert_eq!(block_on(store.fs().read_file("/m/a.md")).unwrap(), "hi\n");
/// ```
pub struct MemoryTool<'a, F: FileSystem, C: Clock, T: Telemetry> {
    store: &'a Store<F, C, T>,
}

impl<'a, F: FileSystem, C: Clock, T: Telemetry> MemoryTool<'a, F, C, T> {
    /// The memory tool over `store` (its directory, write mode and lock).
    pub fn new(store: &'a Store<F, C, T>) -> Self {
        MemoryTool { store }
    }
}
