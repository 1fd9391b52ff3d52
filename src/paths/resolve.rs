//! Where memory lives: the auto-memory directory, the daily log, team and
//! agent memory directories. Pure: the host supplies env, settings, home and roots.

use super::enable::{
    EnvMap, Settings, ENV_CONFIG_DIR, ENV_MEMORY_PATH_OVERRIDE, ENV_REMOTE_MEMORY_DIR,
};
use super::slug::sanitize_path;
use super::style::PathStyle;
use super::validate::{check_memory_dir, validate_memory_path_in};
use crate::error::{Code, Error, Result};
use crate::types::ENTRYPOINT_NAME;
use serde::{Deserialize, Serialize};

/// Name of the memory directory under a project's folder.
pub const AUTO_MEM_DIRNAME: &str = "memory";
/// The daily-log location pattern, relative to the memory directory.
pub const DAILY_LOG_PATTERN: &str = "logs/YYYY/MM/YYYY-MM-DD.md";

/// Everything path resolution depends on, supplied by the host. From JS:
/// `{ env, settings, home, projectRoot, cwd, gitRoot, platform }`, every key optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PathContext {
    /// Environment variables.
    pub env: EnvMap,
    /// Settings layers.
    pub settings: Settings,
    /// The user's home directory.
    pub home: String,
    /// The project root (the reference's `getProjectRoot()`).
    pub project_root: String,
    /// The working directory for project/local agent memory; the project root when empty.
    pub cwd: String,
    /// The canonical git root of the project root, if any (see
    /// [`find_canonical_git_root`](super::find_canonical_git_root)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_root: Option<String>,
    /// The host's platform as Node names it (`process.platform`): `"win32"` resolves, validates
    /// and forms paths with the Windows rules (drives, UNC roots, both separators, results with
    /// `\`); anything else with the POSIX ones; empty: see [`PathContext::style`].
    pub platform: String,
}

impl PathContext {
    /// The path grammar of [`PathContext::platform`].
    ///
    /// ```
    /// use memdir::paths::{PathContext, PathStyle};
    /// let ctx = PathContext { platform: "win32".into(), ..PathContext::default() };
    /// assert_eq!(ctx.style(), PathStyle::Win32);
    /// ```
    ///
    /// With no platform given, a home or project root that starts with a drive (`C:\`) or a
    /// UNC share (`\\server\share`) means Windows: such a path cannot be a POSIX one.
    pub fn style(&self) -> PathStyle {
        if self.platform.is_empty()
            && [&self.home, &self.project_root]
                .iter()
                .any(|p| PathStyle::is_windows_rooted(p))
        {
            return PathStyle::Win32;
        }
        PathStyle::of_platform(&self.platform)
    }

    fn env(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    fn cwd(&self) -> &str {
        if self.cwd.is_empty() {
            &self.project_root
        } else {
            &self.cwd
        }
    }

    /// The git root when known, else the project root: what project slugs are made of.
    fn project_base(&self) -> &str {
        self.git_root.as_deref().unwrap_or(&self.project_root)
    }
}

/// The config home: `CLAUDE_CONFIG_DIR` when set (even empty, as JS `??`), else `home/.claude`
/// (joined with the rules of `style`).
///
/// ```
/// use memdir::paths::{config_home_dir, EnvMap, PathStyle};
/// assert_eq!(config_home_dir(&EnvMap::new(), "/home/u", PathStyle::Posix), "/home/u/.claude");
/// assert_eq!(config_home_dir(&EnvMap::new(), "C:\\Users\\u", PathStyle::Win32), "C:\\Users\\u\\.claude");
/// ```
pub fn config_home_dir(env: &EnvMap, home: &str, style: PathStyle) -> String {
    match env.get(ENV_CONFIG_DIR) {
        Some(dir) => dir.clone(),
        None => style.join(&[home, ".claude"]),
    }
}

/// The memory base: `CLAUDE_CODE_REMOTE_MEMORY_DIR` when non-empty, else [`config_home_dir`].
///
/// ```
/// use memdir::paths::{memory_base_dir, EnvMap, PathStyle};
/// let mut env = EnvMap::new();
/// env.insert("CLAUDE_CODE_REMOTE_MEMORY_DIR".into(), "/remote".into());
/// assert_eq!(memory_base_dir(&env, "/home/u", PathStyle::Posix), "/remote");
/// ```
pub fn memory_base_dir(env: &EnvMap, home: &str, style: PathStyle) -> String {
    match env.get(ENV_REMOTE_MEMORY_DIR) {
        Some(dir) if !dir.is_empty() => dir.clone(),
        _ => config_home_dir(env, home, style),
    }
}

/// The validated `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` (no `~` expansion), if any. Its presence is
/// the reference's `hasAutoMemPathOverride()`; a settings directory does not count.
///
/// ```
/// use memdir::paths::{memory_path_override, EnvMap};
/// let mut env = EnvMap::new();
/// env.insert("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".into(), "/mnt/mem/".into());
/// assert_eq!(memory_path_override(&env).as_deref(), Some("/mnt/mem/"));
/// ```
pub fn memory_path_override(env: &EnvMap) -> Option<String> {
    memory_path_override_in(env, PathStyle::Posix)
}

/// [`memory_path_override`] with the path rules of `style`.
///
/// ```
/// use memdir::paths::{memory_path_override_in, EnvMap, PathStyle};
/// let mut env = EnvMap::new();
/// env.insert("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".into(), "D:/mem".into());
/// assert_eq!(memory_path_override_in(&env, PathStyle::Win32).as_deref(), Some("D:\\mem\\"));
/// ```
pub fn memory_path_override_in(env: &EnvMap, style: PathStyle) -> Option<String> {
    env.get(ENV_MEMORY_PATH_OVERRIDE)
        .and_then(|raw| validate_memory_path_in(style, raw, false, ""))
}

/// The auto-memory directory, ending with exactly one `/`:
/// 1. the validated env override;
/// 2. else the settings `autoMemoryDirectory` (first defined of policy, flag, local, user),
///    validated with `~` expansion;
/// 3. else `<memory base>/projects/<sanitize_path(git root or project root)>/memory/`.
///
/// With `platform: "win32"` every step follows the Windows rules, so the result is what the
/// reference gives on Windows (`C:\\Users\\u\\.claude\\projects\\C--Users-u-app\\memory\\`).
///
/// The reference NFC-normalises the result; see [`super::validate_memory_path`] for why this
/// does not.
///
/// ```
/// use memdir::paths::{resolve_memory_dir, PathContext};
/// let ctx = PathContext {
///     home: "/home/u".into(),
///     project_root: "/work/app".into(),
///     ..PathContext::default()
/// };
/// assert_eq!(resolve_memory_dir(&ctx).unwrap(), "/home/u/.claude/projects/-work-app/memory/");
/// // Without `home` (or with an empty `CLAUDE_CONFIG_DIR`) the path would be relative.
/// let err = resolve_memory_dir(&PathContext { home: String::new(), ..ctx }).unwrap_err();
/// assert_eq!(err.code, memdir::Code::InvalidInput);
/// ```
///
/// # Errors
/// `INVALID_INPUT` when the result would not be an absolute directory ([`check_memory_dir`]):
/// no override or setting applies and the base is relative (no `home`, an empty or relative
/// `CLAUDE_CONFIG_DIR`). The reference returns such a relative path; a writer would then
/// write relative to its working directory.
pub fn resolve_memory_dir(ctx: &PathContext) -> Result<String> {
    let style = ctx.style();
    if let Some(dir) = memory_path_override_in(&ctx.env, style) {
        return Ok(dir);
    }
    if let Some(dir) = ctx
        .settings
        .auto_memory_directory()
        .and_then(|raw| validate_memory_path_in(style, raw, true, &ctx.home))
    {
        return Ok(dir);
    }
    let base = memory_base_dir(&ctx.env, &ctx.home, style);
    let slug = sanitize_path(ctx.project_base());
    let dir = style.with_trailing_sep(&style.join(&[&base, "projects", &slug, AUTO_MEM_DIRNAME]));
    check_memory_dir(&dir).map_err(|_| {
        Error::new(
            Code::InvalidInput,
            format!(
                "the memory directory resolved to {dir:?}, which is not absolute: pass `home` \
                 (or an absolute CLAUDE_CONFIG_DIR or CLAUDE_CODE_REMOTE_MEMORY_DIR)"
            ),
        )
    })?;
    Ok(dir)
}

/// `MEMORY.md` inside a memory directory.
///
/// ```
/// assert_eq!(memdir::paths::entrypoint_path("/m/"), "/m/MEMORY.md");
/// ```
pub fn entrypoint_path(memory_dir: &str) -> String {
    PathStyle::of_dir(memory_dir).join(&[memory_dir, ENTRYPOINT_NAME])
}

/// The reference's `isAutoMemPath`: `normalize(path)` starts with the memory directory (which ends
/// with `/`). Case-sensitive, no symlink resolution; the directory itself without its trailing
/// `/` does not match.
///
/// ```
/// use memdir::paths::is_auto_mem_path;
/// assert!(is_auto_mem_path("/m/x/../a.md", "/m/"));
/// assert!(!is_auto_mem_path("/m", "/m/"));
/// assert!(!is_auto_mem_path("/m-evil/a.md", "/m/"));
/// ```
pub fn is_auto_mem_path(path: &str, memory_dir: &str) -> bool {
    PathStyle::of_dir(memory_dir)
        .normalize(path)
        .starts_with(memory_dir)
}

/// The daily log for a local date: `<dir>/logs/YYYY/MM/YYYY-MM-DD.md` (month and day zero-padded
/// to 2; the year written as JS `String(year)`, unpadded).
///
/// ```
/// assert_eq!(
///     memdir::paths::daily_log_path("/m/", 2024, 3, 7),
///     "/m/logs/2024/03/2024-03-07.md"
/// );
/// ```
pub fn daily_log_path(memory_dir: &str, year: i32, month: u32, day: u32) -> String {
    let month = format!("{month:02}");
    let file = format!("{year}-{month}-{day:02}.md");
    PathStyle::of_dir(memory_dir).join(&[memory_dir, "logs", &year.to_string(), &month, &file])
}

/// The team memory directory: `<dir>team/`.
///
/// ```
/// assert_eq!(memdir::paths::team_dir("/m/"), "/m/team/");
/// ```
pub fn team_dir(memory_dir: &str) -> String {
    let style = PathStyle::of_dir(memory_dir);
    style.with_trailing_sep(&style.join(&[memory_dir, "team"]))
}

/// Where an agent's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentMemoryScope {
    /// Shared by every project: `<memory base>/agent-memory/<type>/`.
    User,
    /// Committed with the project: `<cwd>/.claude/agent-memory/<type>/`.
    Project,
    /// This project on this machine: `<cwd>/.claude/agent-memory-local/<type>/`.
    Local,
}

/// An agent type as a directory name: `:` becomes `-` (plugin agents are `plugin:name`).
///
/// ```
/// assert_eq!(memdir::paths::agent_dir_name("my-plugin:reviewer"), "my-plugin-reviewer");
/// ```
pub fn agent_dir_name(agent_type: &str) -> String {
    agent_type.replace(':', "-")
}

/// An agent's memory directory, ending with `/`. With
/// `CLAUDE_CODE_REMOTE_MEMORY_DIR` set, local scope moves to
/// `<remote>/projects/<sanitized git root>/agent-memory-local/<type>/`.
///
/// The agent type is a host-chosen name and is used as one path segment, as in the reference;
/// callers must not pass untrusted text.
///
/// ```
/// use memdir::paths::{agent_memory_dir, AgentMemoryScope, PathContext};
/// let ctx = PathContext { home: "/h".into(), project_root: "/p".into(), ..PathContext::default() };
/// assert_eq!(agent_memory_dir(&ctx, "a:b", AgentMemoryScope::User), "/h/.claude/agent-memory/a-b/");
/// assert_eq!(agent_memory_dir(&ctx, "rev", AgentMemoryScope::Project), "/p/.claude/agent-memory/rev/");
/// ```
pub fn agent_memory_dir(ctx: &PathContext, agent_type: &str, scope: AgentMemoryScope) -> String {
    let name = agent_dir_name(agent_type);
    let style = ctx.style();
    let join_all = |segments: &[&str]| style.join(segments);
    let path = match scope {
        AgentMemoryScope::User => join_all(&[
            &memory_base_dir(&ctx.env, &ctx.home, style),
            "agent-memory",
            &name,
        ]),
        AgentMemoryScope::Project => join_all(&[ctx.cwd(), ".claude", "agent-memory", &name]),
        AgentMemoryScope::Local => match ctx.env(ENV_REMOTE_MEMORY_DIR) {
            Some(remote) if !remote.is_empty() => join_all(&[
                remote,
                "projects",
                &sanitize_path(ctx.project_base()),
                "agent-memory-local",
                &name,
            ]),
            _ => join_all(&[ctx.cwd(), ".claude", "agent-memory-local", &name]),
        },
    };
    style.with_trailing_sep(&path)
}

/// The reference's `isAgentMemoryPath`: `normalize(path)` lies under one of the three agent
/// memory roots (string prefix, as [`is_auto_mem_path`]).
///
/// ```
/// use memdir::paths::{is_agent_memory_path, PathContext};
/// let ctx = PathContext { home: "/h".into(), project_root: "/p".into(), ..PathContext::default() };
/// assert!(is_agent_memory_path(&ctx, "/p/.claude/agent-memory/rev/a.md"));
/// assert!(!is_agent_memory_path(&ctx, "/p/.claude/agent-memory-evil/a.md"));
/// ```
pub fn is_agent_memory_path(ctx: &PathContext, path: &str) -> bool {
    let style = ctx.style();
    let join_all = |segments: &[&str]| style.join(segments);
    let path = style.normalize(path);
    let user = join_all(&[&memory_base_dir(&ctx.env, &ctx.home, style), "agent-memory"]);
    let project = join_all(&[ctx.cwd(), ".claude", "agent-memory"]);
    let local = match ctx.env(ENV_REMOTE_MEMORY_DIR) {
        Some(remote) if !remote.is_empty() => join_all(&[
            remote,
            "projects",
            &sanitize_path(ctx.project_base()),
            "agent-memory-local",
        ]),
        _ => join_all(&[ctx.cwd(), ".claude", "agent-memory-local"]),
    };
    [user, project, local]
        .into_iter()
        .any(|root| path.starts_with(&style.with_trailing_sep(&root)))
}
