//! The consolidation request: the four phases of the reference's dream prompt, in our
//! words, asking for a JSON reply instead of tool calls, and the directory shown as text.

use super::changeset::CurrentFile;
use crate::manifest::iso_timestamp;
use crate::prompt::{
    extract_how_to_save, operations_schema, types_section, what_not_to_save, INDEX_LINE_FORMAT,
};

/// JSON Schema (as JSON text) of the consolidation reply.
pub const CONSOLIDATE_RESPONSE_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"operations":{"type":"array","items":{"type":"object","#,
    r#""properties":{"op":{"type":"string","enum":["create","update","delete"]},"#,
    r#""file":{"type":"string"},"#,
    r#""type":{"type":"string","enum":["user","feedback","project","reference"]},"#,
    r#""name":{"type":"string"},"description":{"type":"string"},"body":{"type":"string"}},"#,
    r#""required":["op","file"],"additionalProperties":false}},"#,
    r#""index":{"type":"string"},"summary":{"type":"string"}},"#,
    r#""required":["operations"],"additionalProperties":false}"#
);

/// The part of [`CONSOLIDATE_RESPONSE_SCHEMA`] only consolidation has: the reply's `index` and
/// `summary` (the rest is shared with extraction through [`operations_schema`]).
pub(crate) const CONSOLIDATE_REPLY_FIELDS: &str =
    r#","index":{"type":"string"},"summary":{"type":"string"}"#;

/// [`CONSOLIDATE_RESPONSE_SCHEMA`], built from the parts shared with the extraction schema.
pub(crate) fn consolidate_response_schema() -> String {
    operations_schema("", CONSOLIDATE_REPLY_FIELDS)
}

/// Longest excerpt of one file shown, in bytes.
pub const MAX_FILE_SHOWN_BYTES: usize = 16 * 1024;
/// Most bytes of file text shown in one request; later files are listed by name only.
pub const MAX_SHOWN_BYTES: usize = 200 * 1024;

/// The system prompt of a consolidation run over `memory_dir`.
///
/// ```
/// let p = memdir::consolidate::build_consolidation_request_prompt("/m/", false, &["s1".into()]);
/// assert!(p.starts_with("# Dream: Memory Consolidation\n"));
/// assert!(p.contains("## Phase 4 — Prune and index"));
/// assert!(p.ends_with("- s1"));
/// ```
pub fn build_consolidation_request_prompt(
    memory_dir: &str,
    skip_index: bool,
    sessions: &[String],
) -> String {
    let mut lines: Vec<String> = [
        "# Dream: Memory Consolidation",
        "",
        "This is a reflective pass over the memory files. Fold what has been learned recently \
         into lasting, well-organised memories, so that later sessions can find their footing \
         quickly.",
        "",
    ]
    .map(str::to_owned)
    .to_vec();
    lines.push(format!(
        "Memory directory: `{memory_dir}`. Its index and files are in the next message; you \
         cannot open or change anything yourself. Your reply is a proposal the user reviews \
         before anything is written."
    ));
    lines.extend(
        [
            "",
            "---",
            "",
            "## Phase 1 — Orient",
            "",
            "- Read MEMORY.md, the current index, in the next message.",
            "- Read the topic files that follow it, so you improve them instead of adding \
             near-duplicates. A file marked as shown in part may have its fields changed but \
             not its body replaced.",
            "- If daily logs (`logs/…`) are included, look over their recent entries.",
            "",
            "## Phase 2 — Gather recent signal",
            "",
            "Look for new information worth keeping, roughly in this order:",
            "",
            "1. **Daily logs**, if there are any: they carry most of the new material.",
            "2. **Drifted memories**: facts that contradict each other or newer entries.",
            "",
            "## Phase 3 — Consolidate",
            "",
            "For each thing worth keeping, create or update a top-level memory file. In \
             particular:",
            "",
            "- Merge new signal into the existing topic files instead of making near-duplicates.",
            "- Turn relative dates (\"yesterday\", \"last week\") into absolute ones.",
            "- Delete memories that newer information contradicts or that duplicate another.",
            "- Never touch `team/` or `logs/`: they are not yours to change here.",
            "",
            "## Phase 4 — Prune and index",
            "",
        ]
        .map(str::to_owned),
    );
    lines.push(format!(
        "MEMORY.md must stay under 200 lines AND about 25KB: one line per entry, under about \
         150 characters, in the form {INDEX_LINE_FORMAT}. Entries for the files you create, \
         update or delete are kept in step for you. To reorder or regroup it, to drop stale \
         pointers or to shorten lines longer than about 200 characters, give its complete new \
         text as `index`; it then replaces the index as written, so it must list every memory \
         that remains."
    ));
    lines.extend(["", "---", ""].map(str::to_owned));
    lines.extend(types_section(false));
    lines.push(String::new());
    lines.extend(what_not_to_save());
    lines.push(String::new());
    lines.extend(extract_how_to_save(false, skip_index));
    lines.extend(
        [
            "",
            "## Your reply",
            "",
            "One JSON object and nothing else: `operations` (as above, possibly empty), \
             optionally `index`, and `summary`, a few sentences on what you consolidated, \
             updated or pruned, or saying that nothing needed to change.",
        ]
        .map(str::to_owned),
    );
    if !sessions.is_empty() {
        lines.push(String::new());
        lines.push("## Additional context".to_owned());
        lines.push(String::new());
        lines.push(format!(
            "Sessions since the last consolidation ({}):",
            sessions.len()
        ));
        lines.extend(sessions.iter().map(|s| format!("- {s}")));
    }
    crate::jsstr::join(&lines, "\n")
}

/// A code fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// The longest prefix of `text` of at most `max` bytes, at a char boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}

/// A file of the directory as the model sees it, with its time.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownFile {
    /// Relative path and text.
    pub file: CurrentFile,
    /// Modification time, ms.
    pub mtime_ms: f64,
}

/// The user message: the index, then each file (whole, in part, or by name only once the
/// budget is spent). Marks `shown_whole` on each file accordingly.
pub fn directory_message(index: Option<&str>, files: &mut [ShownFile]) -> String {
    let mut out = String::from("## MEMORY.md\n\n");
    match index {
        Some(text) => {
            let fence = fence_for(text);
            out.push_str(&format!("{fence}markdown\n{text}\n{fence}\n"));
        }
        None => out.push_str("(there is no MEMORY.md yet)\n"),
    }
    out.push_str("\n## Memory files\n");
    let mut budget = MAX_SHOWN_BYTES;
    for shown in files.iter_mut() {
        let f = &mut shown.file;
        let when = iso_timestamp(shown.mtime_ms);
        let excerpt = prefix(&f.text, MAX_FILE_SHOWN_BYTES.min(budget));
        budget -= excerpt.len();
        f.shown_whole = excerpt.len() == f.text.len();
        if excerpt.is_empty() && !f.text.is_empty() {
            out.push_str(&format!("\n### {} (modified {when}; not shown)\n", f.file));
            continue;
        }
        let note = if f.shown_whole { "" } else { "; shown in part" };
        let fence = fence_for(excerpt);
        out.push_str(&format!(
            "\n### {} (modified {when}{note})\n\n{fence}markdown\n{excerpt}\n{fence}\n",
            f.file
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_schema_parts_rebuild_the_constant() {
        assert_eq!(consolidate_response_schema(), CONSOLIDATE_RESPONSE_SCHEMA);
    }

    #[test]
    fn fences_and_budget() {
        assert_eq!(fence_for("a ``` b"), "````");
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(prefix("héllo", 2), "h");
        let big = "x".repeat(MAX_FILE_SHOWN_BYTES + 10);
        let mut files = vec![
            ShownFile {
                file: CurrentFile {
                    file: "big.md".into(),
                    text: big,
                    shown_whole: true,
                },
                mtime_ms: 0.0,
            },
            ShownFile {
                file: CurrentFile {
                    file: "small.md".into(),
                    text: "s".into(),
                    shown_whole: false,
                },
                mtime_ms: 0.0,
            },
        ];
        let text = directory_message(None, &mut files);
        assert!(!files[0].file.shown_whole);
        assert!(files[1].file.shown_whole);
        assert!(text.contains("### big.md (modified 1970-01-01T00:00:00.000Z; shown in part)"));
        assert!(text.contains("(there is no MEMORY.md yet)"));
    }
}
