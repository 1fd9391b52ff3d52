//! Prompt builders: the memory section of the system prompt in four modes, the
//! extraction prompt and the consolidation prompt.
//!
//! The structure (sections, order, headings, blank lines, placeholders) follows the reference so
//! the model sees the same shape; the prose is our own. Every tool the prose names comes from
//! [`ToolNames`], and any section can be replaced through
//! [`PromptOptions::section_overrides`] (ids in [`SECTION_IDS`]).
//!
//! ```
//! use memdir::prompt::{build_memory_prompt, PromptMode, PromptOptions};
//! let mut options = PromptOptions::new(PromptMode::Combined, "/home/u/.claude/projects/p/memory/");
//! options.skip_index = true;
//! let prompt = build_memory_prompt(&options);
//! assert!(prompt.starts_with("# Memory\n"));
//! assert!(prompt.contains("<scope>always private</scope>"));
//! assert!(!prompt.contains("**Step 2**"));
//! ```

mod agent;
mod build;
mod compaction;
mod consolidate;
mod daily_log;
mod extract;
mod guidance;
mod intro;
mod load;
mod options;
mod save;
mod search;
mod types_section;

pub use agent::{agent_index_tail, agent_scope_note, EMPTY_INDEX_NOTICE};
pub use build::{build_memory_prompt, unknown_section_ids, SECTION_IDS};
pub use compaction::{compaction_reminder, IndexUsage, NEAR_LIMIT_PERCENT};
pub use consolidate::build_consolidation_prompt;
pub use daily_log::{
    daily_log_index, daily_log_intro, daily_log_path, what_to_log, DAILY_LOG_PATTERN,
};
pub use extract::{build_extract_prompt, extract_how_to_save, EXTRACT_RESPONSE_SCHEMA};
pub(crate) use extract::{operations_schema, EXTRACT_OP_FIELDS};
pub use guidance::{
    persistence, trusting_recall, what_not_to_save, when_to_access, DRIFT_CAVEAT,
    TEAM_SECRETS_BULLET,
};
pub use intro::{
    combined_intro, dir_exists_guidance, dirs_exist_guidance, individual_intro,
    memory_scope_section, BUILD_UP_PARAGRAPH, REMEMBER_FORGET_PARAGRAPH,
};
pub use load::{load_prompt, EVENT_DISABLED, EVENT_LOADED, EVENT_TEAM_DISABLED};
pub use options::{
    default_team_dir, AgentScope, PromptMode, PromptOptions, SearchForm, ToolNames,
    AGENT_MEMORY_DISPLAY_NAME, AUTO_MEMORY_DISPLAY_NAME, COMBINED_DISPLAY_NAME,
};
pub use save::{frontmatter_example, how_to_save, INDEX_LINE_FORMAT};
pub use search::searching_past_context;
pub use types_section::{scope_label, types_section};

use crate::str_map::StrMap;
use serde::{Deserialize, Serialize};

/// How [`load_prompt`] builds the memory prompt (part of [`crate::MemdirConfig`]).
/// Deserializes from a camelCase JS option bag; every field is optional.
///
/// ```
/// use memdir::prompt::{PromptConfig, PromptMode};
/// let config = PromptConfig { team: true, ..PromptConfig::default() };
/// assert_eq!(config.effective_mode(), PromptMode::Combined);
/// assert_eq!(config.options("/m/").team_dir(), "/m/team/");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct PromptConfig {
    /// Which prompt (see [`Self::effective_mode`] for how `team` changes it).
    pub mode: PromptMode,
    /// Team memory is on: individual mode becomes combined, as the reference switches to the
    /// combined prompt when team memory is enabled. Daily-log and agent modes are unaffected.
    pub team: bool,
    /// The team directory; defaults to `<dir>team/`.
    pub team_dir: Option<String>,
    /// Leave out the MEMORY.md index steps.
    pub skip_index: bool,
    /// Extra guideline lines (the reference's `CLAUDE_COWORK_MEMORY_EXTRA_GUIDELINES`).
    pub extra_guidelines: Vec<String>,
    /// The title, if not the mode's default.
    pub display_name: Option<String>,
    /// Agent mode: where the agent's memory lives.
    pub agent_scope: Option<AgentScope>,
    /// Adds the "Searching past context" section in this form.
    pub searching_past_context: Option<SearchForm>,
    /// Where session transcripts live (for the searching section).
    pub transcripts_dir: Option<String>,
    /// The host's tool names.
    pub tool_names: ToolNames,
    /// Section replacements by id (see [`SECTION_IDS`]).
    pub section_overrides: StrMap,
}

impl PromptConfig {
    /// The mode in effect: `Combined` when `team` is set and the mode is `Individual`.
    pub fn effective_mode(&self) -> PromptMode {
        match self.mode {
            PromptMode::Individual if self.team => PromptMode::Combined,
            mode => mode,
        }
    }

    /// The [`PromptOptions`] this configuration gives over `memory_dir` (no agent index yet).
    pub fn options(&self, memory_dir: &str) -> PromptOptions {
        PromptOptions {
            mode: self.effective_mode(),
            memory_dir: memory_dir.to_owned(),
            team_dir: self.team_dir.clone(),
            skip_index: self.skip_index,
            extra_guidelines: self.extra_guidelines.clone(),
            display_name: self.display_name.clone(),
            agent_scope: self.agent_scope,
            agent_index: None,
            searching_past_context: self.searching_past_context,
            transcripts_dir: self.transcripts_dir.clone(),
            tool_names: self.tool_names.clone(),
            section_overrides: self.section_overrides.clone(),
            index_usage: None,
        }
    }
}
