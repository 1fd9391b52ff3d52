//! The consolidation ("dream") prompt: orient, gather, consolidate, prune.

use super::intro::dir_exists_guidance;
use super::options::{with_trailing_slash, ToolNames};
use super::save::INDEX_LINE_FORMAT;

/// The consolidation prompt for `memory_dir`, with the transcripts step when `transcripts_dir`
/// is given, and `## Additional context` when `extra` is not empty.
///
/// ```
/// use memdir::prompt::{build_consolidation_prompt, ToolNames};
/// let prompt = build_consolidation_prompt("/m/", Some("/t"), Some("- s1"), &ToolNames::default());
/// assert!(prompt.starts_with("# Dream: Memory Consolidation\n"));
/// assert!(prompt.contains("grep -rn \"<narrow term>\" /t/ --include=\"*.jsonl\" | tail -50"));
/// assert!(prompt.ends_with("\n\n## Additional context\n\n- s1"));
/// ```
pub fn build_consolidation_prompt(
    memory_dir: &str,
    transcripts_dir: Option<&str>,
    extra: Option<&str>,
    tools: &ToolNames,
) -> String {
    let transcripts = transcripts_dir.map(with_trailing_slash);
    let mut lines = vec![
        "# Dream: Memory Consolidation".to_owned(),
        String::new(),
        "This is a reflective pass over your memory files. Fold what you have learned recently \
         into lasting, well-organised memories, so that later sessions can find their footing \
         quickly."
            .to_owned(),
        String::new(),
        format!("Memory directory: `{memory_dir}`"),
        dir_exists_guidance(tools),
        String::new(),
    ];
    if let Some(dir) = &transcripts {
        lines.push(format!(
            "Session transcripts: `{dir}` (large JSONL files: search them for narrow terms, \
             never read them whole)"
        ));
        lines.push(String::new());
    }
    lines.extend(
        [
            "---",
            "",
            "## Phase 1 — Orient",
            "",
            "- List the memory directory to see what is already there.",
            "- Open MEMORY.md to get the current index.",
            "- Skim the existing topic files, so you improve them instead of adding \
             near-duplicates.",
            "- If `logs/` or `sessions/` subdirectories exist, look over their recent entries.",
            "",
            "## Phase 2 — Gather recent signal",
            "",
            "Look for new information worth keeping, roughly in this order:",
            "",
            "1. **Daily logs** (`logs/YYYY/MM/YYYY-MM-DD.md`), if there are any: they carry most \
             of the new material.",
            "2. **Drifted memories**: facts that no longer match what the codebase shows now.",
        ]
        .map(str::to_owned),
    );
    if let Some(dir) = &transcripts {
        lines.push(
            "3. **Transcript search**: when you need one particular detail, search the \
             transcripts for a narrow term:"
                .to_owned(),
        );
        lines.push(format!(
            "   `grep -rn \"<narrow term>\" {dir} --include=\"*.jsonl\" | tail -50`"
        ));
        lines.push(String::new());
        lines.push(
            "Do not read transcripts from end to end; only look for things you already \
             suspect matter."
                .to_owned(),
        );
    }
    lines.extend(
        [
            "",
            "## Phase 3 — Consolidate",
            "",
            "For each thing worth keeping, create or update a top-level memory file, following \
             the format and type conventions from your system prompt. In particular:",
            "",
            "- Merge new signal into the existing topic files instead of making near-duplicates.",
            "- Turn relative dates (\"yesterday\", \"last week\") into absolute ones so they stay \
             meaningful.",
            "- Delete facts that newer information contradicts.",
            "",
            "## Phase 4 — Prune and index",
            "",
        ]
        .map(str::to_owned),
    );
    lines.push(format!(
        "Bring MEMORY.md up to date, keeping it under 200 lines AND about 25KB. It is an index, \
         not a place for content: one line per entry, under about 150 characters, in the form \
         {INDEX_LINE_FORMAT}."
    ));
    lines.extend(
        [
            "",
            "- Remove pointers to memories that are stale, wrong or superseded.",
            "- Shorten any line longer than about 200 characters by moving its detail into the \
             topic file.",
            "- Add pointers to memories that have become important.",
            "- Resolve contradictions between memories.",
            "",
            "---",
            "",
            "End with a short summary of what you consolidated, updated or pruned, or say that \
             nothing needed to change.",
        ]
        .map(str::to_owned),
    );
    let mut text = crate::jsstr::join(&lines, "\n");
    if let Some(extra) = extra.filter(|e| !e.is_empty()) {
        text.push_str("\n\n## Additional context\n\n");
        text.push_str(extra);
    }
    text
}
