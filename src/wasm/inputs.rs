//! Readers for the nested inputs shared by several exports: prompt options, settings and the
//! path context.

use super::fields::Fields;
use crate::paths::{PathContext, Settings, SettingsLayer};
use crate::prompt::{AgentScope, PromptConfig, PromptMode, PromptOptions, SearchForm, ToolNames};

const MODE_NAMES: [&str; 4] = ["individual", "combined", "daily-log", "agent"];
const MODES: [PromptMode; 4] = [
    PromptMode::Individual,
    PromptMode::Combined,
    PromptMode::DailyLog,
    PromptMode::Agent,
];
const SCOPE_NAMES: [&str; 3] = ["user", "project", "local"];
const SCOPES: [AgentScope; 3] = [AgentScope::User, AgentScope::Project, AgentScope::Local];
const FORM_NAMES: [&str; 2] = ["shell", "tool"];
const FORMS: [SearchForm; 2] = [SearchForm::Shell, SearchForm::Tool];
const TOOL_KEYS: [&str; 6] = ["write", "edit", "read", "grep", "glob", "bash"];

fn tool_names(given: &Fields) -> ToolNames {
    let t = given.object("toolNames");
    t.only(&TOOL_KEYS);
    let d = ToolNames::default();
    let name = |key: &str, default: String| t.opt_string(key).unwrap_or(default);
    ToolNames {
        write: name("write", d.write),
        edit: name("edit", d.edit),
        read: name("read", d.read),
        grep: name("grep", d.grep),
        glob: name("glob", d.glob),
        bash: name("bash", d.bash),
    }
}

fn mode(given: &Fields) -> PromptMode {
    given
        .opt_choice(
            "mode",
            &MODE_NAMES,
            "one of `individual`, `combined`, `daily-log`, `agent`",
        )
        .and_then(|i| MODES.get(i).copied())
        .unwrap_or_default()
}

fn agent_scope(given: &Fields) -> Option<AgentScope> {
    given
        .opt_choice(
            "agentScope",
            &SCOPE_NAMES,
            "one of `user`, `project`, `local`",
        )
        .and_then(|i| SCOPES.get(i).copied())
}

fn search_form(given: &Fields) -> Option<SearchForm> {
    given
        .opt_choice(
            "searchingPastContext",
            &FORM_NAMES,
            "one of `shell`, `tool`",
        )
        .and_then(|i| FORMS.get(i).copied())
}

/// `buildMemoryPrompt`'s options (unknown fields are refused).
pub fn prompt_options(given: &Fields) -> PromptOptions {
    given.only(&[
        "mode",
        "memoryDir",
        "teamDir",
        "skipIndex",
        "extraGuidelines",
        "displayName",
        "agentScope",
        "agentIndex",
        "searchingPastContext",
        "transcriptsDir",
        "toolNames",
        "sectionOverrides",
    ]);
    PromptOptions {
        mode: mode(given),
        memory_dir: given.string("memoryDir"),
        team_dir: given.opt_string("teamDir"),
        skip_index: given.flag("skipIndex"),
        extra_guidelines: given.strings("extraGuidelines"),
        display_name: given.opt_string("displayName"),
        agent_scope: agent_scope(given),
        agent_index: given.opt_string("agentIndex"),
        searching_past_context: search_form(given),
        transcripts_dir: given.opt_string("transcriptsDir"),
        tool_names: tool_names(given),
        section_overrides: given.string_map("sectionOverrides", false),
    }
}

/// The `prompt` option of `new Memdir` (unknown fields are refused).
pub fn prompt_config(given: &Fields) -> PromptConfig {
    given.only(&[
        "mode",
        "team",
        "teamDir",
        "skipIndex",
        "extraGuidelines",
        "displayName",
        "agentScope",
        "searchingPastContext",
        "transcriptsDir",
        "toolNames",
        "sectionOverrides",
    ]);
    PromptConfig {
        mode: mode(given),
        team: given.flag("team"),
        team_dir: given.opt_string("teamDir"),
        skip_index: given.flag("skipIndex"),
        extra_guidelines: given.strings("extraGuidelines"),
        display_name: given.opt_string("displayName"),
        agent_scope: agent_scope(given),
        searching_past_context: search_form(given),
        transcripts_dir: given.opt_string("transcriptsDir"),
        tool_names: tool_names(given),
        section_overrides: given.string_map("sectionOverrides", false),
    }
}

fn layer(given: &Fields, key: &str) -> SettingsLayer {
    let l = given.object(key);
    SettingsLayer {
        auto_memory_enabled: l.opt_bool("autoMemoryEnabled"),
        auto_memory_directory: l.opt_string("autoMemoryDirectory"),
    }
}

/// The `settings` field of an input (absent: no settings).
pub fn settings(given: &Fields) -> Settings {
    let s = given.object("settings");
    Settings {
        auto_memory_enabled: s.opt_bool("autoMemoryEnabled"),
        auto_memory_directory: s.opt_string("autoMemoryDirectory"),
        policy: layer(&s, "policy"),
        flag: layer(&s, "flag"),
        local: layer(&s, "local"),
        project: layer(&s, "project"),
        user: layer(&s, "user"),
    }
}

/// `resolveMemoryDir`'s context (`env` entries that are not strings are left out).
pub fn path_context(given: &Fields) -> PathContext {
    PathContext {
        env: given.string_map("env", true),
        settings: settings(given),
        home: given.string_or_empty("home"),
        project_root: given.string_or_empty("projectRoot"),
        cwd: given.string_or_empty("cwd"),
        git_root: given.opt_string("gitRoot"),
    }
}
