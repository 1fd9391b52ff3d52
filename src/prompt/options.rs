//! The option bag of [`crate::prompt::build_memory_prompt`] and its small enums.

use crate::str_map::StrMap;
use serde::{Deserialize, Serialize};

/// Which memory prompt to build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromptMode {
    /// One private memory directory (reference `buildMemoryLines`).
    #[default]
    Individual,
    /// A private directory plus a shared team directory (reference `buildCombinedMemoryPrompt`).
    Combined,
    /// A long-lived session that appends to daily log files (reference KAIROS prompt).
    DailyLog,
    /// A sub-agent's own memory, with its `MEMORY.md` embedded (reference `buildMemoryPrompt`).
    Agent,
}

/// How the "Searching past context" section tells the model to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchForm {
    /// A shell command line: `grep -rn "<search term>" <dir> --include="*.md"`.
    Shell,
    /// A call of the host's search tool: `Grep with pattern=… path=… glob=…`.
    Tool,
}

/// Where an agent's memory lives, which decides its scope note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentScope {
    /// In the user's home, shared by every project.
    User,
    /// In the project, checked into version control.
    Project,
    /// In the project, kept out of version control.
    Local,
}

/// The names of the host's tools, as the prompts mention them. Every tool the prose names goes
/// through this table, so a host whose write tool is called `SaveFile` gets `SaveFile` throughout.
///
/// ```
/// let names = memdir::prompt::ToolNames::default();
/// assert_eq!(names.write, "Write");
/// assert_eq!(names.grep, "Grep");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ToolNames {
    /// The tool that creates or replaces a file (default `Write`).
    pub write: String,
    /// The tool that edits part of a file (default `Edit`).
    pub edit: String,
    /// The tool that reads a file (default `Read`).
    pub read: String,
    /// The content-search tool (default `Grep`).
    pub grep: String,
    /// The file-name pattern tool (default `Glob`).
    pub glob: String,
    /// The shell tool (default `Bash`).
    pub bash: String,
}

impl Default for ToolNames {
    fn default() -> Self {
        ToolNames {
            write: "Write".to_owned(),
            edit: "Edit".to_owned(),
            read: "Read".to_owned(),
            grep: "Grep".to_owned(),
            glob: "Glob".to_owned(),
            bash: "Bash".to_owned(),
        }
    }
}

/// Everything [`crate::prompt::build_memory_prompt`] needs. Deserializes from a camelCase JS
/// option bag in which only `memoryDir` is required.
///
/// ```
/// use memdir::prompt::{PromptMode, PromptOptions};
/// let options = PromptOptions::new(PromptMode::Combined, "/m/");
/// assert_eq!(options.team_dir(), "/m/team/");
/// assert_eq!(options.display_name(), "Memory");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptOptions {
    /// Which prompt.
    #[serde(default)]
    pub mode: PromptMode,
    /// The (private) memory directory, absolute, ending with `/`.
    pub memory_dir: String,
    /// The team directory (combined mode); defaults to `<memory_dir>team/`.
    #[serde(default)]
    pub team_dir: Option<String>,
    /// Leave out the MEMORY.md index steps (reference flag `tengu_moth_copse`). Ignored in agent
    /// mode, whose prompt always embeds the index.
    #[serde(default)]
    pub skip_index: bool,
    /// Extra guideline lines, inserted before the searching section; blank entries are dropped.
    #[serde(default)]
    pub extra_guidelines: Vec<String>,
    /// The title; defaults to `auto memory` (individual, daily-log), `Memory` (combined) or
    /// `Persistent Agent Memory` (agent).
    #[serde(default)]
    pub display_name: Option<String>,
    /// Agent mode: where the agent's memory lives; adds the matching scope note.
    #[serde(default)]
    pub agent_scope: Option<AgentScope>,
    /// Agent mode: the already-truncated `MEMORY.md` text; `None` or blank shows the empty notice.
    #[serde(default)]
    pub agent_index: Option<String>,
    /// Adds the "Searching past context" section, in this form (reference flag `tengu_coral_fern`).
    #[serde(default)]
    pub searching_past_context: Option<SearchForm>,
    /// Where session transcripts (`*.jsonl`) live; without it the searching section has no
    /// transcript step.
    #[serde(default)]
    pub transcripts_dir: Option<String>,
    /// The host's tool names.
    #[serde(default)]
    pub tool_names: ToolNames,
    /// Replacement text per section id (see [`crate::prompt::SECTION_IDS`]); an empty string drops
    /// the section together with the blank line that follows it.
    #[serde(default)]
    pub section_overrides: StrMap,
    /// How full `MEMORY.md` is; near its caps the prompt gains the `index-compaction` reminder
    /// (not with `skip_index`, outside agent mode). `Memdir.loadPrompt` measures it.
    #[serde(default)]
    pub index_usage: Option<super::IndexUsage>,
}

/// Title of the main agent's memory prompt (reference `AUTO_MEM_DISPLAY_NAME`).
pub const AUTO_MEMORY_DISPLAY_NAME: &str = "auto memory";
/// Title of an agent's memory prompt (reference agentMemory.ts).
pub const AGENT_MEMORY_DISPLAY_NAME: &str = "Persistent Agent Memory";
/// Title of the combined prompt.
pub const COMBINED_DISPLAY_NAME: &str = "Memory";

impl PromptOptions {
    /// Options for `mode` over `memory_dir`, everything else default.
    pub fn new(mode: PromptMode, memory_dir: impl Into<String>) -> Self {
        PromptOptions {
            mode,
            memory_dir: memory_dir.into(),
            ..PromptOptions::default()
        }
    }

    /// The title in effect: [`Self::display_name`] or the mode's default.
    pub fn display_name(&self) -> &str {
        match (&self.display_name, self.mode) {
            (Some(name), _) => name,
            (None, PromptMode::Agent) => AGENT_MEMORY_DISPLAY_NAME,
            (None, PromptMode::Combined) => COMBINED_DISPLAY_NAME,
            (None, _) => AUTO_MEMORY_DISPLAY_NAME,
        }
    }

    /// The team directory in effect: [`Self::team_dir`] or `<memory_dir>team/`.
    pub fn team_dir(&self) -> String {
        match &self.team_dir {
            Some(dir) => dir.clone(),
            None => default_team_dir(&self.memory_dir),
        }
    }
}

/// `<dir>team/` (reference `getTeamMemPath`), adding the separator `dir` lacks.
///
/// ```
/// assert_eq!(memdir::prompt::default_team_dir("/m/"), "/m/team/");
/// assert_eq!(memdir::prompt::default_team_dir("/m"), "/m/team/");
/// ```
pub fn default_team_dir(dir: &str) -> String {
    format!("{}team/", with_trailing_slash(dir))
}

/// `dir` with exactly one trailing `/` (unchanged if it already ends with one).
pub(crate) fn with_trailing_slash(dir: &str) -> String {
    if dir.ends_with('/') {
        dir.to_owned()
    } else {
        format!("{dir}/")
    }
}
