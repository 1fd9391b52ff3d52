//! [`build_memory_prompt`]: the sections of each mode in the reference's order, with its blank
//! lines, section overrides applied.

use super::agent::{agent_index_tail, agent_scope_note};
use super::daily_log::{daily_log_index, daily_log_intro, what_to_log};
use super::guidance::TEAM_SECRETS_BULLET;
use super::guidance::{persistence, trusting_recall, what_not_to_save, when_to_access};
use super::intro::{combined_intro, individual_intro, memory_scope_section};
use super::options::{PromptMode, PromptOptions};
use super::save::how_to_save;
use super::search::searching_past_context;
use super::types_section::types_section;
use crate::jsstr::js_trim;
use crate::str_map::StrMap;

/// Every section id a [`PromptOptions::section_overrides`] key may name:
///
/// | id | section | modes |
/// |---|---|---|
/// | `intro` | everything between the `#` title and the first `##` heading | all |
/// | `memory-scope` | `## Memory scope` | combined |
/// | `types` | `## Types of memory` | individual, combined, agent |
/// | `what-not-to-save` | `## What NOT to save in memory` (combined: with the team-secrets bullet) | all |
/// | `how-to-save` | `## How to save memories` | individual, combined, agent |
/// | `when-to-access` | `## When to access memories` | individual, combined, agent |
/// | `trusting-recall` | `## Before recommending from memory` | individual, combined, agent |
/// | `persistence` | `## Memory and other forms of persistence` | individual, combined, agent |
/// | `what-to-log` | `## What to log` | daily-log |
/// | `daily-log-index` | `## MEMORY.md` (read-only index note) | daily-log, unless `skip_index` |
/// | `searching-past-context` | `## Searching past context` | all, when `searching_past_context` is set |
///
/// An override replaces the section's lines (its heading included) and keeps the blank lines
/// around it; an empty override drops the section and the blank line after it. Overrides never
/// add a section the mode or the options leave out.
pub const SECTION_IDS: &[&str] = &[
    "intro",
    "memory-scope",
    "types",
    "what-not-to-save",
    "how-to-save",
    "when-to-access",
    "trusting-recall",
    "persistence",
    "what-to-log",
    "daily-log-index",
    "searching-past-context",
    "index-compaction",
];

/// The override keys that are not in [`SECTION_IDS`] (for a host to report typos).
///
/// ```
/// use memdir::str_map::StrMap;
/// let overrides = StrMap::from([("types".to_owned(), String::new()), ("typo".to_owned(), String::new())]);
/// assert_eq!(memdir::prompt::unknown_section_ids(&overrides), vec!["typo"]);
/// ```
pub fn unknown_section_ids(overrides: &StrMap) -> Vec<&str> {
    overrides
        .keys()
        .map(String::as_str)
        .filter(|key| !SECTION_IDS.contains(key))
        .collect()
}

/// Collects lines, applying overrides section by section.
struct Assembler<'a> {
    lines: Vec<String>,
    overrides: &'a StrMap,
}

impl<'a> Assembler<'a> {
    fn new(title: &str, overrides: &'a StrMap) -> Self {
        Assembler {
            lines: vec![format!("# {title}"), String::new()],
            overrides,
        }
    }

    /// Push section `id` (its override or its default); false when it came out empty.
    fn section(&mut self, id: &str, default: impl FnOnce() -> Vec<String>) -> bool {
        match self.overrides.get(id) {
            Some(text) if text.is_empty() => false,
            Some(text) => {
                self.lines.extend(text.split('\n').map(str::to_owned));
                true
            }
            None => {
                let lines = default();
                let pushed = !lines.is_empty();
                self.lines.extend(lines);
                pushed
            }
        }
    }

    /// Push section `id` and, unless it came out empty, a blank line after it.
    fn section_then_blank(&mut self, id: &str, default: impl FnOnce() -> Vec<String>) {
        if self.section(id, default) {
            self.blank();
        }
    }

    fn blank(&mut self) {
        self.lines.push(String::new());
    }

    fn extend(&mut self, lines: impl IntoIterator<Item = String>) {
        self.lines.extend(lines);
    }

    fn searching(&mut self, options: &PromptOptions, memory_dir: &str) {
        if let Some(form) = options.searching_past_context {
            self.section_then_blank("searching-past-context", || {
                searching_past_context(
                    form,
                    &options.tool_names,
                    memory_dir,
                    options.transcripts_dir.as_deref(),
                )
            });
        }
    }

    /// The compaction reminder, when the index is near its caps and the prompt keeps an index.
    fn compaction(&mut self, options: &PromptOptions, keeps_index: bool) {
        let near = options
            .index_usage
            .as_ref()
            .filter(|u| keeps_index && u.is_near_limit());
        if let Some(usage) = near {
            if self
                .overrides
                .get("index-compaction")
                .is_some_and(String::is_empty)
            {
                return;
            }
            // After the closing blank lines of individual mode, one blank line is enough.
            if self.lines.len() >= 2 && self.lines.iter().rev().take(2).all(String::is_empty) {
                self.lines.pop();
            }
            self.section_then_blank("index-compaction", || {
                super::compaction::compaction_reminder(usage)
            });
        }
    }

    fn finish(self) -> String {
        crate::jsstr::join(&self.lines, "\n")
    }
}

/// The extra guideline lines that are not blank (JS `trim()` semantics), untrimmed.
fn extra_lines(extra: &[String]) -> impl Iterator<Item = String> + '_ {
    extra
        .iter()
        .filter(|line| !js_trim(line).is_empty())
        .cloned()
}

/// Individual and agent mode (reference `buildMemoryLines`); `extra` are the guideline lines.
fn individual(options: &PromptOptions, skip_index: bool, extra: Vec<String>) -> Assembler<'_> {
    let tools = &options.tool_names;
    let dir = options.memory_dir.as_str();
    let mut out = Assembler::new(options.display_name(), &options.section_overrides);
    out.section_then_blank("intro", || individual_intro(dir, tools));
    out.section_then_blank("types", || types_section(false));
    out.section_then_blank("what-not-to-save", what_not_to_save);
    out.section_then_blank("how-to-save", || how_to_save(false, skip_index));
    out.section_then_blank("when-to-access", || when_to_access(false));
    out.section_then_blank("trusting-recall", || trusting_recall(tools));
    out.section_then_blank("persistence", persistence);
    // The reference always closes the (possibly empty) guidelines with a blank line.
    out.extend(extra);
    out.blank();
    out.searching(options, dir);
    out
}

/// Combined mode (reference `buildCombinedMemoryPrompt`).
fn combined(options: &PromptOptions) -> Assembler<'_> {
    let tools = &options.tool_names;
    let dir = options.memory_dir.as_str();
    let team_dir = options.team_dir();
    let mut out = Assembler::new(options.display_name(), &options.section_overrides);
    out.section_then_blank("intro", || combined_intro(dir, &team_dir, tools));
    out.section_then_blank("memory-scope", || memory_scope_section(dir, &team_dir));
    out.section_then_blank("types", || types_section(true));
    out.section_then_blank("what-not-to-save", || {
        let mut lines = what_not_to_save();
        lines.push(TEAM_SECRETS_BULLET.to_owned());
        lines
    });
    out.section_then_blank("how-to-save", || how_to_save(true, options.skip_index));
    out.section_then_blank("when-to-access", || when_to_access(true));
    out.section_then_blank("trusting-recall", || trusting_recall(tools));
    // Unlike individual mode, the guidelines follow the persistence bullets directly.
    out.section("persistence", persistence);
    out.extend(extra_lines(&options.extra_guidelines));
    out.blank();
    out.searching(options, dir);
    out
}

/// Daily-log mode (reference `buildAssistantDailyLogPrompt`).
fn daily_log(options: &PromptOptions) -> Assembler<'_> {
    let dir = options.memory_dir.as_str();
    let mut out = Assembler::new(options.display_name(), &options.section_overrides);
    out.section_then_blank("intro", || daily_log_intro(dir));
    out.section_then_blank("what-to-log", what_to_log);
    out.section_then_blank("what-not-to-save", what_not_to_save);
    if !options.skip_index {
        out.section_then_blank("daily-log-index", daily_log_index);
    }
    // Not in the reference prompt: host guidelines, only when there are any.
    let extra: Vec<String> = extra_lines(&options.extra_guidelines).collect();
    if !extra.is_empty() {
        out.extend(extra);
        out.blank();
    }
    out.searching(options, dir);
    out
}

/// Build the memory prompt for `options.mode`. Lines are joined with `"\n"`.
///
/// ```
/// use memdir::prompt::{build_memory_prompt, PromptMode, PromptOptions};
/// let prompt = build_memory_prompt(&PromptOptions::new(PromptMode::Individual, "/m/"));
/// assert!(prompt.starts_with("# auto memory\n\n"));
/// assert!(prompt.contains("\n## How to save memories\n"));
/// ```
pub fn build_memory_prompt(options: &PromptOptions) -> String {
    match options.mode {
        PromptMode::Individual => {
            let extra = extra_lines(&options.extra_guidelines).collect();
            let mut out = individual(options, options.skip_index, extra);
            out.compaction(options, !options.skip_index);
            out.finish()
        }
        PromptMode::Combined => {
            let mut out = combined(options);
            out.compaction(options, !options.skip_index);
            out.finish()
        }
        PromptMode::DailyLog => {
            let mut out = daily_log(options);
            out.compaction(options, !options.skip_index);
            out.finish()
        }
        PromptMode::Agent => {
            let scope_note = options.agent_scope.map(|s| agent_scope_note(s).to_owned());
            let extra = scope_note
                .into_iter()
                .chain(extra_lines(&options.extra_guidelines))
                .collect();
            let mut out = individual(options, false, extra);
            out.compaction(options, true);
            out.extend(agent_index_tail(options.agent_index.as_deref()));
            out.finish()
        }
    }
}
