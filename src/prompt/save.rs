//! `## How to save memories` and the frontmatter example
//! (reference `MEMORY_FRONTMATTER_EXAMPLE`). Lines without a trailing blank line.

use crate::types::MemoryType;

/// The `` `- [Title](file.md) — one-line hook` `` format of an index line, in backticks.
pub const INDEX_LINE_FORMAT: &str = "`- [Title](file.md) — one-line hook`";

/// The fenced ```` ```markdown ```` frontmatter example with `{{…}}` placeholders.
///
/// ```
/// let lines = memdir::prompt::frontmatter_example();
/// assert_eq!(lines[2], "name: {{memory name}}");
/// assert_eq!(lines[4], "type: {{user, feedback, project, reference}}");
/// ```
pub fn frontmatter_example() -> Vec<String> {
    let types: Vec<&str> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
    vec![
        "```markdown".to_owned(),
        "---".to_owned(),
        "name: {{memory name}}".to_owned(),
        "description: {{a one-line description, specific enough to judge relevance in a later \
         conversation}}"
            .to_owned(),
        format!("type: {{{{{}}}}}", crate::jsstr::join(&types, ", ")),
        "---".to_owned(),
        String::new(),
        "{{the memory itself — for feedback and project memories, the rule or fact followed by \
         **Why:** and **How to apply:** lines}}"
            .to_owned(),
        "```".to_owned(),
    ]
}

/// The bullets after the save steps: the index bullet (unless `skip_index`), then the four
/// upkeep bullets.
fn save_bullets(combined: bool, skip_index: bool) -> Vec<String> {
    let mut bullets = Vec::new();
    if !skip_index {
        bullets.push(if combined {
            "- Both MEMORY.md indexes are always loaded into your context, and lines past 200 in \
             either are cut off, so keep them short."
        } else {
            "- MEMORY.md is always loaded into your context, and lines past 200 are cut off, so \
             keep the index short."
        });
    }
    bullets.extend([
        "- Keep the name, description and type in each file's frontmatter in step with its \
         content.",
        "- Organise memories by topic, not by date.",
        "- When a memory turns out to be wrong or outdated, correct it or delete it.",
        "- Avoid duplicates: look for an existing memory you can update before you add a new one.",
    ]);
    bullets.into_iter().map(str::to_owned).collect()
}

/// The opening of a `## How to save memories` section, up to its example: the heading, then
/// one sentence when there is no index step (`alone`), else "two steps" and Step 1
/// (`step_one`). Both are given where the file goes, which depends on `combined`. Shared by
/// the main prompt and the extraction prompt, which word the sentences for their own reader.
pub(super) fn how_to_save_opening(
    combined: bool,
    skip_index: bool,
    alone: impl Fn(&str) -> String,
    step_one: impl Fn(&str) -> String,
) -> Vec<String> {
    let mut lines = vec!["## How to save memories".to_owned(), String::new()];
    let where_to = if combined {
        "in the directory its scope calls for (private or team, as the type's scope guidance \
         says)"
    } else {
        "(for example `user_role.md` or `feedback_testing.md`)"
    };
    if skip_index {
        lines.push(alone(where_to));
    } else {
        lines.push("Saving a memory takes two steps.".to_owned());
        lines.push(String::new());
        lines.push(step_one(where_to));
    }
    lines
}

/// `## How to save memories` for individual (`combined = false`) or combined mode; `skip_index`
/// drops Step 2 and the index bullet.
///
/// ```
/// let with_index = memdir::prompt::how_to_save(false, false);
/// assert!(with_index.iter().any(|l| l.starts_with("**Step 2**")));
/// let without = memdir::prompt::how_to_save(false, true);
/// assert!(!without.iter().any(|l| l.contains("Step")));
/// ```
pub fn how_to_save(combined: bool, skip_index: bool) -> Vec<String> {
    let mut lines = how_to_save_opening(
        combined,
        skip_index,
        |where_to| {
            format!(
                "Save each memory in a file of its own {where_to}, starting with this frontmatter:"
            )
        },
        |where_to| {
            format!(
                "**Step 1** — put the memory in a file of its own {where_to}, starting with this \
                 frontmatter:"
            )
        },
    );
    lines.push(String::new());
    lines.extend(frontmatter_example());
    lines.push(String::new());
    if !skip_index {
        let which_index = if combined {
            "in the MEMORY.md of that same directory; each directory keeps its own index"
        } else {
            "in MEMORY.md"
        };
        lines.push(format!(
            "**Step 2** — add a line pointing to the new file {which_index}. MEMORY.md is an index, \
             not a memory: one line per memory, each under about 150 characters, in the form \
             {INDEX_LINE_FORMAT}. It has no frontmatter, and memory content never goes into it."
        ));
        lines.push(String::new());
    }
    lines.extend(save_bullets(combined, skip_index));
    lines
}
