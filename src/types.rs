//! Data types shared across the core.

use serde::{Deserialize, Serialize};

/// File name of the index in every memory directory.
pub const ENTRYPOINT_NAME: &str = "MEMORY.md";
/// Index line cap.
pub const MAX_ENTRYPOINT_LINES: usize = 200;
/// Index size cap, in UTF-16 code units (the reference compares JS `.length`).
pub const MAX_ENTRYPOINT_UNITS: usize = 25_000;
/// Most memory files a scan returns.
pub const MAX_MEMORY_FILES: usize = 200;
/// Lines of each file a scan reads for its frontmatter.
pub const FRONTMATTER_MAX_LINES: usize = 30;
/// Most memories recall selects.
pub const MAX_SELECTED: usize = 5;
/// Lines of a surfaced memory file.
pub const MAX_SURFACED_LINES: usize = 200;
/// UTF-8 bytes of a surfaced memory file.
pub const MAX_SURFACED_BYTES: usize = 4096;
/// Surfaced content per session, in UTF-16 units, after which recall stops.
pub const MAX_SESSION_UNITS: usize = 61_440;
/// Longest string an exported function or constructor accepts as one argument or one field of
/// an options object (a memory body, a query, a message, frontmatter or index text), in UTF-16
/// code units (JS `.length`): 4 Mi units, up to 12 MiB as UTF-8. Longer strings are refused
/// with `INVALID_INPUT` before they are copied into WebAssembly memory.
///
/// ```
/// assert!(memdir::types::MAX_INPUT_UNITS >= memdir::types::MAX_ENTRYPOINT_UNITS);
/// ```
pub const MAX_INPUT_UNITS: usize = 4 * 1024 * 1024;
/// Most string content one call accepts in all (every string of an options object and of its
/// arrays, such as a conversation's messages), in UTF-16 code units: 16 Mi units. Past it the
/// call is refused with `INVALID_INPUT` before the rest is copied in.
///
/// ```
/// assert!(memdir::types::MAX_CALL_UNITS >= memdir::types::MAX_INPUT_UNITS);
/// ```
pub const MAX_CALL_UNITS: usize = 16 * 1024 * 1024;
/// Most elements of one array in an input (messages, operations, proposals, tool uses …):
/// 100,000. A longer array is refused with `INVALID_INPUT` before its elements are read.
///
/// ```
/// assert_eq!(memdir::types::MAX_INPUT_ITEMS, 100_000);
/// ```
pub const MAX_INPUT_ITEMS: usize = 100_000;
/// Largest file the host may return from `readFile` (UTF-16 code units of a string, or bytes
/// of a byte array): 10 Mi, the size below which the reference reads a whole file. A longer
/// answer fails that read with a host error (`EFBIG`) before it is copied in.
///
/// ```
/// assert_eq!(memdir::types::MAX_HOST_FILE_LEN, 10 * 1024 * 1024);
/// ```
pub const MAX_HOST_FILE_LEN: usize = 10 * 1024 * 1024;
/// Milliseconds in a day, for ages.
pub const DAY_MS: f64 = 86_400_000.0;

/// The four kinds of memory. Parsing is case-sensitive: `User` is not a type. Its strings are
/// those of [`MemoryType::as_str`], for serde too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryType {
    /// Who the user is: role, goals, knowledge.
    User,
    /// Corrections and confirmations of how to work.
    Feedback,
    /// Ongoing work, goals, incidents not derivable from code.
    Project,
    /// Pointers to external systems.
    Reference,
}

impl MemoryType {
    /// All types, in the reference's order.
    pub const ALL: [MemoryType; 4] = [
        MemoryType::User,
        MemoryType::Feedback,
        MemoryType::Project,
        MemoryType::Reference,
    ];

    /// Parse exactly `user`, `feedback`, `project` or `reference`.
    ///
    /// ```
    /// use memdir::MemoryType;
    /// assert_eq!(MemoryType::parse("user"), Some(MemoryType::User));
    /// assert_eq!(MemoryType::parse("User"), None);
    /// ```
    pub fn parse(s: &str) -> Option<MemoryType> {
        MemoryType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The names of [`MemoryType::ALL`], in order.
    ///
    /// ```
    /// assert_eq!(memdir::MemoryType::NAMES, ["user", "feedback", "project", "reference"]);
    /// ```
    pub const NAMES: [&'static str; 4] = {
        let mut names = [""; 4];
        let mut i = 0;
        while i < names.len() {
            names[i] = MemoryType::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// The type's name as written in frontmatter: the one table of the four strings.
    ///
    /// ```
    /// assert_eq!(memdir::MemoryType::Feedback.as_str(), "feedback");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }
}

impl Serialize for MemoryType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for MemoryType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = MemoryType;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a memory type")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<MemoryType, E> {
                MemoryType::parse(s).ok_or_else(|| E::unknown_variant(s, &MemoryType::NAMES))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

/// What a scan knows of one memory file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryHeader {
    /// Path relative to the scanned directory, `/`-separated (e.g. `team/api.md`).
    pub filename: String,
    /// Absolute path.
    pub file_path: String,
    /// Modification time in ms since the epoch (may be fractional).
    pub mtime_ms: f64,
    /// The description as the reference's manifest prints it (non-strings stringified as JS
    /// would; falsy values are `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The memory type, if it is exactly one of the four.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
    /// The `name` field, if it is a string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The body text within the scanned head (after the frontmatter); used by the ranker.
    #[serde(skip)]
    pub body_head: String,
}
