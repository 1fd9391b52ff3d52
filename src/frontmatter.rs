//! Frontmatter parsing and formatting (reference §4, design §5).
// OWNER: core-text helper.
use crate::types::MemoryType;
use serde::Serialize;

/// The fields the memory system reads from frontmatter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryFields {
    /// `name`, if a string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `description` as JS would stringify it; falsy → `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `type`, if exactly one of the four.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
}

/// Result of [`parse_frontmatter`]. Never an error: problems become diagnostics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedFrontmatter {
    /// The YAML mapping (empty when absent or unparseable).
    pub frontmatter: serde_yaml::Mapping,
    /// The text after the frontmatter.
    pub body: String,
    /// The memory fields.
    pub header: MemoryFields,
    /// What was recovered or dropped, for people.
    pub diagnostics: Vec<String>,
}

/// Parse a memory file's frontmatter.
pub fn parse_frontmatter(text: &str) -> ParsedFrontmatter {
    todo!("{text}")
}

/// A memory file's text: frontmatter (`name`, `description`, `type`) then the body.
pub fn format_memory_file(header: &MemoryFields, body: &str) -> String {
    todo!("{header:?}{body}")
}
