//! Prompt options and config, settings and the path context.

use super::{Fields, FromJs};
use crate::paths::{PathContext, Settings, SettingsLayer};
use crate::prompt::{PromptConfig, PromptOptions, ToolNames};
use crate::str_map::StrMap;

impl FromJs for ToolNames {
    const WHAT: &'static str = "tool names";

    fn read(t: &Fields) -> ToolNames {
        t.only(&["write", "edit", "read", "grep", "glob", "bash"]);
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
}

impl FromJs for PromptOptions {
    const WHAT: &'static str = "prompt options";

    /// Unknown fields are refused.
    fn read(given: &Fields) -> PromptOptions {
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
            "indexUsage",
        ]);
        let usage = given.object("indexUsage");
        let caps = crate::TruncateOptions::default();
        let index_usage =
            usage
                .opt_usize("lineCount")
                .map(|line_count| crate::prompt::IndexUsage {
                    line_count,
                    unit_count: usage.opt_usize("unitCount").unwrap_or(0),
                    max_lines: usage.opt_usize("maxLines").unwrap_or(caps.max_lines),
                    max_units: usage.opt_usize("maxUnits").unwrap_or(caps.max_units),
                });
        PromptOptions {
            mode: given.opt_enum("mode").unwrap_or_default(),
            memory_dir: given.string("memoryDir"),
            team_dir: given.opt_string("teamDir"),
            skip_index: given.flag("skipIndex"),
            extra_guidelines: given.strings("extraGuidelines"),
            display_name: given.opt_string("displayName"),
            agent_scope: given.opt_enum("agentScope"),
            agent_index: given.opt_string("agentIndex"),
            searching_past_context: given.opt_enum("searchingPastContext"),
            transcripts_dir: given.opt_string("transcriptsDir"),
            tool_names: ToolNames::read(&given.object("toolNames")),
            section_overrides: given.string_map("sectionOverrides", false),
            index_usage,
        }
    }
}

impl FromJs for PromptConfig {
    const WHAT: &'static str = "prompt config";

    /// The `prompt` option of `new Memdir` (unknown fields are refused).
    fn read(given: &Fields) -> PromptConfig {
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
            mode: given.opt_enum("mode").unwrap_or_default(),
            team: given.flag("team"),
            team_dir: given.opt_string("teamDir"),
            skip_index: given.flag("skipIndex"),
            extra_guidelines: given.strings("extraGuidelines"),
            display_name: given.opt_string("displayName"),
            agent_scope: given.opt_enum("agentScope"),
            searching_past_context: given.opt_enum("searchingPastContext"),
            transcripts_dir: given.opt_string("transcriptsDir"),
            tool_names: ToolNames::read(&given.object("toolNames")),
            section_overrides: given.string_map("sectionOverrides", false),
        }
    }
}

impl FromJs for SettingsLayer {
    const WHAT: &'static str = "settings";

    fn read(l: &Fields) -> SettingsLayer {
        SettingsLayer {
            auto_memory_enabled: l.opt_bool("autoMemoryEnabled"),
            auto_memory_directory: l.opt_string("autoMemoryDirectory"),
        }
    }
}

impl FromJs for Settings {
    const WHAT: &'static str = "settings";

    fn read(s: &Fields) -> Settings {
        let layer = |key: &str| SettingsLayer::read(&s.object(key));
        Settings {
            auto_memory_enabled: s.opt_bool("autoMemoryEnabled"),
            auto_memory_directory: s.opt_string("autoMemoryDirectory"),
            policy: layer("policy"),
            flag: layer("flag"),
            local: layer("local"),
            project: layer("project"),
            user: layer("user"),
        }
    }
}

impl FromJs for PathContext {
    const WHAT: &'static str = "path context";

    /// `resolveMemoryDir`'s context (`env` entries that are not strings are left out).
    fn read(given: &Fields) -> PathContext {
        PathContext {
            env: given.string_map("env", true),
            settings: Settings::read(&given.object("settings")),
            home: given.string_or_empty("home"),
            project_root: given.string_or_empty("projectRoot"),
            cwd: given.string_or_empty("cwd"),
            git_root: given.opt_string("gitRoot"),
            platform: given.string_or_empty("platform"),
        }
    }
}

/// `isAutoMemoryEnabled`'s input.
pub(crate) struct AutoMemoryInput {
    pub env: StrMap,
    pub settings: Settings,
}

impl FromJs for AutoMemoryInput {
    const WHAT: &'static str = "input";
    const OPTIONAL: bool = true;

    fn read(given: &Fields) -> AutoMemoryInput {
        AutoMemoryInput {
            env: given.string_map("env", true),
            settings: Settings::read(&given.object("settings")),
        }
    }
}
