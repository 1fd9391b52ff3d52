//! The opening paragraphs of the prompts: where memory lives and that its directory already
//! exists, how memory builds up over time, and what explicit "remember" / "forget" requests
//! mean. Each function returns lines without a trailing blank line.

use super::options::ToolNames;

/// One sentence: the memory directory already exists, write into it with the write tool
/// (reference `DIR_EXISTS_GUIDANCE`).
///
/// ```
/// let names = memdir::prompt::ToolNames::default();
/// assert!(memdir::prompt::dir_exists_guidance(&names).contains("Write tool"));
/// ```
pub fn dir_exists_guidance(tools: &ToolNames) -> String {
    format!(
        "This directory is already in place: save files into it directly with the {} tool, \
         without creating it or checking whether it exists.",
        tools.write
    )
}

/// One sentence: both memory directories already exist (reference `DIRS_EXIST_GUIDANCE`).
pub fn dirs_exist_guidance(tools: &ToolNames) -> String {
    format!(
        "Both directories are already in place: save files into them directly with the {} \
         tool, without creating them or checking whether they exist.",
        tools.write
    )
}

/// The paragraph on building memory over time.
pub const BUILD_UP_PARAGRAPH: &str = "Use this memory to build up, session after session, a \
    picture of the person you work with: who they are, how they like to collaborate, which of \
    your habits they want you to keep or drop, and the background of the work they give you. \
    The fuller that picture, the more useful you become.";

/// The paragraph on explicit "remember" / "forget" requests.
pub const REMEMBER_FORGET_PARAGRAPH: &str = "When the user asks you outright to remember \
    something, save it at once as whichever type fits it best. When they ask you to forget \
    something, find the memory that holds it and remove it.";

/// Individual and agent mode: location + dir-exists sentence, build-up and remember paragraphs.
pub fn individual_intro(memory_dir: &str, tools: &ToolNames) -> Vec<String> {
    vec![
        format!(
            "Your memory is a set of plain files in `{memory_dir}` that lasts from one \
             conversation to the next. {}",
            dir_exists_guidance(tools)
        ),
        String::new(),
        BUILD_UP_PARAGRAPH.to_owned(),
        String::new(),
        REMEMBER_FORGET_PARAGRAPH.to_owned(),
    ]
}

/// Combined mode: the two-directory sentence, build-up and remember paragraphs.
pub fn combined_intro(memory_dir: &str, team_dir: &str, tools: &ToolNames) -> Vec<String> {
    vec![
        format!(
            "Your memory is kept as plain files in two directories: a private one at \
             `{memory_dir}` and a team one, shared with your colleagues, at `{team_dir}`. {}",
            dirs_exist_guidance(tools)
        ),
        String::new(),
        BUILD_UP_PARAGRAPH.to_owned(),
        String::new(),
        REMEMBER_FORGET_PARAGRAPH.to_owned(),
    ]
}

/// Combined mode: `## Memory scope` with its `- private:` and `- team:` bullets.
pub fn memory_scope_section(memory_dir: &str, team_dir: &str) -> Vec<String> {
    vec![
        "## Memory scope".to_owned(),
        String::new(),
        "Each memory belongs to one of two scopes:".to_owned(),
        String::new(),
        format!(
            "- private: seen only by the current user and kept across their conversations; \
             these files sit at the root of `{memory_dir}`."
        ),
        format!(
            "- team: shared by, and added to by, everyone who works in this project directory, \
             synced when each session starts; these files sit in `{team_dir}`."
        ),
    ]
}
