//! The extraction prompt, asking for a JSON list of operations instead of tool
//! calls:
//!
//! ```text
//! {"operations":[{"op":"create"|"update"|"delete","file":"x.md","type":…,"name":…,
//!   "description":…,"body":…,"scope":"private"|"team"}]}
//! ```
//!
//! `create` carries every field; `update` carries `file` and only the fields that change (a
//! `body` replaces the whole body); `delete` carries `file` only. `scope` is for combined mode
//! (default `private`); `file` is relative to the scope's directory.

use super::guidance::{what_not_to_save, TEAM_SECRETS_BULLET};
use super::intro::REMEMBER_FORGET_PARAGRAPH;
use super::save::how_to_save_opening;
use super::types_section::types_section;
use crate::types::MemoryType;

/// JSON Schema (as JSON text) of the extraction reply, for [`crate::LlmRequest::response_schema`].
pub const EXTRACT_RESPONSE_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"operations":{"type":"array","items":{"type":"object","#,
    r#""properties":{"op":{"type":"string","enum":["create","update","delete"]},"#,
    r#""file":{"type":"string"},"#,
    r#""type":{"type":"string","enum":["user","feedback","project","reference"]},"#,
    r#""name":{"type":"string"},"description":{"type":"string"},"body":{"type":"string"},"#,
    r#""scope":{"type":"string","enum":["private","team"]}},"#,
    r#""required":["op","file"],"additionalProperties":false}}},"#,
    r#""required":["operations"],"additionalProperties":false}"#
);

/// The extraction and consolidation reply schemas, built from the parts they share so the module
/// stores those parts once: `op_fields` goes after `body` in an operation, `reply_fields` after
/// `operations` in the reply. Equal to [`EXTRACT_RESPONSE_SCHEMA`] for the extraction parts.
pub(crate) fn operations_schema(op_fields: &str, reply_fields: &str) -> String {
    let mut schema = String::from(
        r#"{"type":"object","properties":{"operations":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string","enum":["create","update","delete"]},"file":{"type":"string"},"type":{"type":"string","enum":["user","feedback","project","reference"]},"name":{"type":"string"},"description":{"type":"string"},"body":{"type":"string"}"#,
    );
    schema.push_str(op_fields);
    schema.push_str(r#"},"required":["op","file"],"additionalProperties":false}}"#);
    schema.push_str(reply_fields);
    schema.push_str(r#"},"required":["operations"],"additionalProperties":false}"#);
    schema
}

/// The part of [`EXTRACT_RESPONSE_SCHEMA`] only extraction has: an operation's `scope`.
pub(crate) const EXTRACT_OP_FIELDS: &str =
    r#","scope":{"type":"string","enum":["private","team"]}"#;

/// The four opening paragraphs, then the existing-files list when `manifest` is not empty.
fn opener(new_message_count: usize, manifest: &str, combined: bool) -> String {
    let n = new_message_count;
    let scope = if combined {
        " Set `scope` to `team` for a memory that belongs in team memory; it also tells which \
         directory `file` is in (the default is `private`)."
    } else {
        ""
    };
    let mut text = format!(
        "You are now the memory extraction subagent. Go through the most recent ~{n} messages \
         of the conversation above and decide what in them deserves a place in persistent \
         memory.\n\n\
         You have no tools in this step: you cannot read, search, run or write anything \
         yourself. Instead, your whole reply is one JSON object, with no text around it and no \
         code fence, of the form `{{\"operations\":[…]}}`. Each operation has `op` (`create`, \
         `update` or `delete`) and `file` (a file name such as `user_role.md`).{scope} A \
         `create` also gives `type`, `name`, `description` and `body`; an `update` gives only \
         the fields that change, and a `body` it gives replaces the whole body; a `delete` \
         needs nothing more. The operations are applied for you, and the index is kept in step \
         with them.\n\n\
         You get a single reply, so settle every change first and then list them all in that \
         one object. If nothing is worth saving, reply with `{{\"operations\":[]}}`.\n\n\
         You MUST draw only on what the last ~{n} messages contain. Do not try to check or \
         extend it: no searching the source, no reading code, no git commands."
    );
    if !manifest.is_empty() {
        text.push_str("\n\n## Existing memory files\n\n");
        text.push_str(manifest);
        text.push_str(
            "\n\nGo through this list before you save anything: when a memory on the same topic \
             already exists, update it rather than creating a second one.",
        );
    }
    text
}

/// The JSON example that stands where the prompts' frontmatter example stands.
fn operations_example(combined: bool) -> Vec<String> {
    let types: Vec<&str> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
    let mut lines = vec![
        "```json".to_owned(),
        "{".to_owned(),
        "  \"operations\": [".to_owned(),
        "    {".to_owned(),
        "      \"op\": \"create\",".to_owned(),
        "      \"file\": \"feedback_testing.md\",".to_owned(),
        format!(
            "      \"type\": \"{{{{{}}}}}\",",
            crate::jsstr::join(&types, ", ")
        ),
    ];
    if combined {
        lines.push("      \"scope\": \"{{private or team, per the type's scope}}\",".to_owned());
    }
    lines.extend(
        [
            "      \"name\": \"{{memory name}}\",",
            "      \"description\": \"{{a one-line description, specific enough to judge \
             relevance in a later conversation}}\",",
            "      \"body\": \"{{the memory itself — for feedback and project memories, the rule \
             or fact followed by **Why:** and **How to apply:** lines}}\"",
            "    },",
            "    { \"op\": \"update\", \"file\": \"user_role.md\", \"description\": \"{{the new \
             description}}\" },",
            "    { \"op\": \"delete\", \"file\": \"project_old_deadline.md\" }",
            "  ]",
            "}",
            "```",
        ]
        .map(str::to_owned),
    );
    lines
}

/// `## How to save memories` of the extraction prompt: Step 1 names the operation, Step 2 says
/// the index line is written for you; bullets as the reference's extraction prompt (no
/// frontmatter-upkeep bullet).
pub fn extract_how_to_save(combined: bool, skip_index: bool) -> Vec<String> {
    let mut lines = how_to_save_opening(
        combined,
        skip_index,
        |where_to| {
            format!(
                "Give each memory a file of its own {where_to} and describe it as one operation \
                 of your reply:"
            )
        },
        |where_to| {
            format!(
                "**Step 1** — give the memory a file of its own {where_to} and describe it as one \
                 operation of your reply:"
            )
        },
    );
    lines.push(String::new());
    lines.extend(operations_example(combined));
    lines.push(String::new());
    if !skip_index {
        let which = if combined {
            "the MEMORY.md of the file's own directory (each directory keeps its own index)"
        } else {
            "MEMORY.md"
        };
        lines.push(format!(
            "**Step 2** — you never edit MEMORY.md yourself: for each new file, a line in the \
             form `- [Title](file.md) — one-line hook`, built from `name` and `description`, is \
             added for you to {which}. So keep `description` to one line under about 150 \
             characters, and never send an operation for MEMORY.md."
        ));
        lines.push(String::new());
        lines.push(if combined {
            "- Both MEMORY.md indexes are always loaded into your system prompt, and lines past \
             200 in either are cut off."
                .to_owned()
        } else {
            "- MEMORY.md is always loaded into your system prompt, and lines past 200 are cut off."
                .to_owned()
        });
    }
    lines.extend(
        [
            "- Organise memories by topic, not by date.",
            "- When a memory turns out to be wrong or outdated, `update` it or `delete` it.",
            "- Avoid duplicates: look for an existing file you can update before you create a \
             new one.",
        ]
        .map(str::to_owned),
    );
    lines
}

/// The extraction prompt over the last `new_message_count` messages, with the manifest of the
/// existing files (reference `formatMemoryManifest` text; empty for none), in individual or
/// combined (`combined = true`) form.
///
/// ```
/// let prompt = memdir::prompt::build_extract_prompt(4, "", false, false);
/// assert!(prompt.contains("~4 messages"));
/// assert!(prompt.contains("{\"operations\":[]}"));
/// assert!(!prompt.contains("## Existing memory files"));
/// ```
pub fn build_extract_prompt(
    new_message_count: usize,
    manifest: &str,
    combined: bool,
    skip_index: bool,
) -> String {
    let mut lines = vec![
        opener(new_message_count, manifest, combined),
        String::new(),
        REMEMBER_FORGET_PARAGRAPH.to_owned(),
        String::new(),
    ];
    lines.extend(types_section(combined));
    lines.push(String::new());
    lines.extend(what_not_to_save());
    if combined {
        lines.push(TEAM_SECRETS_BULLET.to_owned());
    }
    lines.push(String::new());
    lines.extend(extract_how_to_save(combined, skip_index));
    crate::jsstr::join(&lines, "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_schema_parts_rebuild_the_constants() {
        assert_eq!(
            operations_schema(EXTRACT_OP_FIELDS, ""),
            EXTRACT_RESPONSE_SCHEMA
        );
    }
}
