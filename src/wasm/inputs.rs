//! Readers for the nested inputs shared by several exports: prompt options, settings and the
//! path context.

use super::fields::Fields;
use crate::paths::{PathContext, Settings, SettingsLayer};
use crate::prompt::{AgentScope, PromptConfig, PromptMode, PromptOptions, SearchForm, ToolNames};
use wasm_bindgen::prelude::*;

const MODES: [(&str, PromptMode); 4] = [
    ("individual", PromptMode::Individual),
    ("combined", PromptMode::Combined),
    ("daily-log", PromptMode::DailyLog),
    ("agent", PromptMode::Agent),
];
const SCOPES: [(&str, AgentScope); 3] = [
    ("user", AgentScope::User),
    ("project", AgentScope::Project),
    ("local", AgentScope::Local),
];
const FORMS: [(&str, SearchForm); 2] = [("shell", SearchForm::Shell), ("tool", SearchForm::Tool)];
const TOOL_KEYS: [&str; 6] = ["write", "edit", "read", "grep", "glob", "bash"];

fn tool_names(given: &Fields) -> Result<ToolNames, JsValue> {
    let t = given.object("toolNames")?;
    t.only(&TOOL_KEYS)?;
    let d = ToolNames::default();
    let name = |key: &str, default: String| -> Result<String, JsValue> {
        Ok(t.opt_string(key)?.unwrap_or(default))
    };
    Ok(ToolNames {
        write: name("write", d.write)?,
        edit: name("edit", d.edit)?,
        read: name("read", d.read)?,
        grep: name("grep", d.grep)?,
        glob: name("glob", d.glob)?,
        bash: name("bash", d.bash)?,
    })
}

/// `buildMemoryPrompt`'s options (unknown fields are refused).
pub fn prompt_options(given: &Fields) -> Result<PromptOptions, JsValue> {
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
    ])?;
    Ok(PromptOptions {
        mode: given.opt_choice("mode", &MODES)?.unwrap_or_default(),
        memory_dir: given.string("memoryDir")?,
        team_dir: given.opt_string("teamDir")?,
        skip_index: given.flag("skipIndex")?,
        extra_guidelines: given.strings("extraGuidelines")?,
        display_name: given.opt_string("displayName")?,
        agent_scope: given.opt_choice("agentScope", &SCOPES)?,
        agent_index: given.opt_string("agentIndex")?,
        searching_past_context: given.opt_choice("searchingPastContext", &FORMS)?,
        transcripts_dir: given.opt_string("transcriptsDir")?,
        tool_names: tool_names(given)?,
        section_overrides: given.string_map("sectionOverrides", false)?,
    })
}

/// The `prompt` option of `new Memdir` (unknown fields are refused).
pub fn prompt_config(given: &Fields) -> Result<PromptConfig, JsValue> {
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
    ])?;
    Ok(PromptConfig {
        mode: given.opt_choice("mode", &MODES)?.unwrap_or_default(),
        team: given.flag("team")?,
        team_dir: given.opt_string("teamDir")?,
        skip_index: given.flag("skipIndex")?,
        extra_guidelines: given.strings("extraGuidelines")?,
        display_name: given.opt_string("displayName")?,
        agent_scope: given.opt_choice("agentScope", &SCOPES)?,
        searching_past_context: given.opt_choice("searchingPastContext", &FORMS)?,
        transcripts_dir: given.opt_string("transcriptsDir")?,
        tool_names: tool_names(given)?,
        section_overrides: given.string_map("sectionOverrides", false)?,
    })
}

fn layer(given: &Fields, key: &str) -> Result<SettingsLayer, JsValue> {
    let l = given.object(key)?;
    Ok(SettingsLayer {
        auto_memory_enabled: l.opt_bool("autoMemoryEnabled")?,
        auto_memory_directory: l.opt_string("autoMemoryDirectory")?,
    })
}

/// The `settings` field of an input (absent: no settings).
pub fn settings(given: &Fields) -> Result<Settings, JsValue> {
    let s = given.object("settings")?;
    Ok(Settings {
        auto_memory_enabled: s.opt_bool("autoMemoryEnabled")?,
        auto_memory_directory: s.opt_string("autoMemoryDirectory")?,
        policy: layer(&s, "policy")?,
        flag: layer(&s, "flag")?,
        local: layer(&s, "local")?,
        project: layer(&s, "project")?,
        user: layer(&s, "user")?,
    })
}

/// `resolveMemoryDir`'s context (`env` entries that are not strings are left out).
pub fn path_context(given: &Fields) -> Result<PathContext, JsValue> {
    Ok(PathContext {
        env: given.string_map("env", true)?,
        settings: settings(given)?,
        home: given.string_or_empty("home")?,
        project_root: given.string_or_empty("projectRoot")?,
        cwd: given.string_or_empty("cwd")?,
        git_root: given.opt_string("gitRoot")?,
    })
}
