//! Shared guidance sections: what not to save, the drift caveat, when to access
//! memories, checking a recalled memory, and memory versus other persistence. Every function
//! returns lines without a trailing blank line.

use super::options::ToolNames;

/// `## What NOT to save in memory`: heading, blank, five bullets, blank, closing paragraph.
pub fn what_not_to_save() -> Vec<String> {
    [
        "## What NOT to save in memory",
        "",
        "- How the code is built: its patterns, architecture, file paths or layout. The current \
         code answers those questions better.",
        "- Git history, such as recent changes or who changed what; `git log` and `git blame` \
         are the source of truth.",
        "- Fixes and the steps that led to them. The fix lives in the code, the story in the \
         commit message.",
        "- Anything already written down in CLAUDE.md files.",
        "- Details that only matter to the task at hand: work in progress, temporary state, the \
         current conversation.",
        "",
        "These exclusions hold even when the user explicitly asks you to save such things. If \
         they want you to remember, say, a list of merged PRs, ask them what about it was \
         surprising or not obvious: that part is worth keeping.",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Combined mode's extra bullet after [`what_not_to_save`]: no secrets in team memory.
pub const TEAM_SECRETS_BULLET: &str = "- You MUST NOT put sensitive data such as API keys, \
    passwords, tokens or other credentials into team memories: everyone on the project can read \
    them.";

/// The drift caveat, a single bullet (reference `MEMORY_DRIFT_CAVEAT`).
pub const DRIFT_CAVEAT: &str = "- Memories go out of date. Before you answer from a memory or \
    act on it, compare it with the current files or resources. When what you see now disagrees \
    with the memory, believe what you see, and correct or remove the outdated memory.";

/// `## When to access memories` (no blank after the heading); `combined` changes the first bullet.
pub fn when_to_access(combined: bool) -> Vec<String> {
    let first = if combined {
        "- When memories, your own or the team's, look relevant, or when the user mentions \
         earlier work done with you or with other people in their organisation."
    } else {
        "- When a memory looks relevant, or when the user mentions work from an earlier \
         conversation."
    };
    [
        "## When to access memories",
        first,
        "- You MUST look in memory when the user asks you to check, recall or remember \
         something.",
        "- If the user tells you to ignore memory or not to use it, carry on as though MEMORY.md \
         were empty, and do not bring up what it holds.",
        DRIFT_CAVEAT,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// `## Before recommending from memory`: paragraph, three bullets, a quoted contrast, paragraph.
pub fn trusting_recall(tools: &ToolNames) -> Vec<String> {
    vec![
        "## Before recommending from memory".to_owned(),
        String::new(),
        "A memory that names a function, a file or a flag only shows that it existed when the \
         memory was saved. Since then it may have been renamed, moved or deleted."
            .to_owned(),
        String::new(),
        "- If it names a file path, make sure the file is still there.".to_owned(),
        format!(
            "- If it names a function or a flag, search for it with the {} tool.",
            tools.grep
        ),
        "- If the user is about to act on what you recommend, verify it first.".to_owned(),
        String::new(),
        "\"My memory mentions X\" is a weaker claim than \"X is there now\".".to_owned(),
        String::new(),
        "A memory that sums up the state of the repository is a snapshot from the day it was \
         saved. When the question is about recent or current state, prefer `git log` or the \
         code itself to the snapshot."
            .to_owned(),
    ]
}

/// `## Memory and other forms of persistence` (no blank after the heading): paragraph, two bullets.
pub fn persistence() -> Vec<String> {
    [
        "## Memory and other forms of persistence",
        "Memory is for what will help in later conversations. Progress and state that only \
         matter within this conversation belong somewhere else:",
        "- To agree with the user on how to tackle a non-trivial implementation, or on a change \
         of approach, make a plan with them instead of saving a memory.",
        "- To keep track of the steps of the current work, use tasks instead of memory.",
    ]
    .map(str::to_owned)
    .to_vec()
}
