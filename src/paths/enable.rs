//! The enable/disable chain over given environment and settings values, and the
//! settings shapes a host passes in.

use crate::case::to_lowercase;
use crate::jsstr::js_trim;
use serde::{Deserialize, Serialize};

/// Environment variables by name, as the host sees them (`process.env` in Node). A missing key
/// is "unset"; an empty value is set-but-empty.
pub type EnvMap = crate::str_map::StrMap;

/// Truthy disables auto memory; defined-falsy force-enables it.
pub const ENV_DISABLE_AUTO_MEMORY: &str = "CLAUDE_CODE_DISABLE_AUTO_MEMORY";
/// Bare mode (`--bare`): truthy disables auto memory.
pub const ENV_SIMPLE: &str = "CLAUDE_CODE_SIMPLE";
/// Remote mode: truthy disables auto memory unless a remote memory dir is set.
pub const ENV_REMOTE: &str = "CLAUDE_CODE_REMOTE";
/// Base directory for memory in remote mode.
pub const ENV_REMOTE_MEMORY_DIR: &str = "CLAUDE_CODE_REMOTE_MEMORY_DIR";
/// The config home (default `~/.claude`).
pub const ENV_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// Full override of the memory directory (validated without `~` expansion).
pub const ENV_MEMORY_PATH_OVERRIDE: &str = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE";

/// The memory-related keys of one settings source.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SettingsLayer {
    /// `autoMemoryEnabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_memory_enabled: Option<bool>,
    /// `autoMemoryDirectory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_memory_directory: Option<String>,
}

/// Settings as the host knows them, one layer per source. From JS:
/// `{ policy: {…}, flag: {…}, local: {…}, project: {…}, user: {…} }`, each layer
/// `{ autoMemoryEnabled?, autoMemoryDirectory? }`. A host with a single settings object may put
/// the two keys at the top level instead: they act as the `user` layer's values when that layer
/// leaves them unset.
///
/// Precedence is policy → flag → local → project → user, first defined value wins. The project
/// layer may switch memory off but never chooses the directory (a repository must not redirect
/// writes), as in the reference.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Shorthand for `user.autoMemoryEnabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_memory_enabled: Option<bool>,
    /// Shorthand for `user.autoMemoryDirectory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_memory_directory: Option<String>,
    /// Managed (enterprise) policy settings.
    pub policy: SettingsLayer,
    /// Settings given on the command line.
    pub flag: SettingsLayer,
    /// Project-local, uncommitted settings.
    pub local: SettingsLayer,
    /// Committed project settings (cannot choose the directory).
    pub project: SettingsLayer,
    /// The user's own settings.
    pub user: SettingsLayer,
}

impl Settings {
    /// The merged `autoMemoryEnabled`: first defined of policy, flag, local, project, user.
    ///
    /// ```
    /// use memdir::paths::{Settings, SettingsLayer};
    /// let mut s = Settings::default();
    /// s.user.auto_memory_enabled = Some(true);
    /// s.project.auto_memory_enabled = Some(false);
    /// assert_eq!(s.auto_memory_enabled(), Some(false));
    /// ```
    pub fn auto_memory_enabled(&self) -> Option<bool> {
        [
            &self.policy,
            &self.flag,
            &self.local,
            &self.project,
            &self.user,
        ]
        .iter()
        .find_map(|layer| layer.auto_memory_enabled)
        .or(self.auto_memory_enabled)
    }

    /// The `autoMemoryDirectory` to validate: the first **defined** of policy, flag, local, user
    /// (project excluded). Chosen before validation, so an invalid higher-priority value masks a
    /// valid lower one.
    ///
    /// ```
    /// use memdir::paths::Settings;
    /// let mut s = Settings::default();
    /// s.project.auto_memory_directory = Some("/evil".into());
    /// assert_eq!(s.auto_memory_directory(), None);
    /// s.auto_memory_directory = Some("~/mem".into());
    /// assert_eq!(s.auto_memory_directory(), Some("~/mem"));
    /// ```
    pub fn auto_memory_directory(&self) -> Option<&str> {
        [&self.policy, &self.flag, &self.local, &self.user]
            .iter()
            .find_map(|layer| layer.auto_memory_directory.as_deref())
            .or(self.auto_memory_directory.as_deref())
    }
}

/// The outcome of the enable chain, with the two telemetry flags of `tengu_memdir_disabled`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoMemoryStatus {
    /// Whether auto memory is on.
    pub enabled: bool,
    /// `CLAUDE_CODE_DISABLE_AUTO_MEMORY` is truthy.
    pub disabled_by_env_var: bool,
    /// Not disabled by the variable, and settings say `autoMemoryEnabled: false`.
    pub disabled_by_setting: bool,
}

/// The reference's `isEnvTruthy`: set, and lower-cased and trimmed (JS `trim`) one of `1`,
/// `true`, `yes`, `on`.
///
/// ```
/// use memdir::paths::is_env_truthy;
/// assert!(is_env_truthy(Some(" TRUE\n")));
/// assert!(!is_env_truthy(Some("")));
/// assert!(!is_env_truthy(None));
/// ```
pub fn is_env_truthy(value: Option<&str>) -> bool {
    value.is_some_and(|v| matches!(js_trim(&to_lowercase(v)), "1" | "true" | "yes" | "on"))
}

/// The reference's `isEnvDefinedFalsy`: set, and lower-cased and trimmed one of `0`, `false`,
/// `no`, `off`. The empty string is **not** defined-falsy.
///
/// ```
/// use memdir::paths::is_env_defined_falsy;
/// assert!(is_env_defined_falsy(Some("Off")));
/// assert!(!is_env_defined_falsy(Some("")));
/// assert!(!is_env_defined_falsy(Some("maybe")));
/// ```
pub fn is_env_defined_falsy(value: Option<&str>) -> bool {
    value.is_some_and(|v| matches!(js_trim(&to_lowercase(v)), "0" | "false" | "no" | "off"))
}

fn env<'a>(env: &'a EnvMap, name: &str) -> Option<&'a str> {
    env.get(name).map(String::as_str)
}

/// The enable chain, first decisive rule wins:
/// 1. `CLAUDE_CODE_DISABLE_AUTO_MEMORY` truthy → off;
/// 2. … defined-falsy → on (overrides everything below);
/// 3. `CLAUDE_CODE_SIMPLE` truthy → off;
/// 4. `CLAUDE_CODE_REMOTE` truthy and `CLAUDE_CODE_REMOTE_MEMORY_DIR` unset or empty → off;
/// 5. settings `autoMemoryEnabled` defined → that value;
/// 6. on.
///
/// ```
/// use memdir::paths::{is_auto_memory_enabled, EnvMap, Settings};
/// let mut env = EnvMap::new();
/// let mut settings = Settings::default();
/// settings.auto_memory_enabled = Some(false);
/// assert!(!is_auto_memory_enabled(&env, &settings));
/// env.insert("CLAUDE_CODE_DISABLE_AUTO_MEMORY".into(), "0".into());
/// assert!(is_auto_memory_enabled(&env, &settings));
/// ```
pub fn is_auto_memory_enabled(env_map: &EnvMap, settings: &Settings) -> bool {
    auto_memory_status(env_map, settings).enabled
}

/// [`is_auto_memory_enabled`] with the reasons reported by `tengu_memdir_disabled`.
///
/// ```
/// use memdir::paths::{auto_memory_status, EnvMap, Settings};
/// let mut env = EnvMap::new();
/// env.insert("CLAUDE_CODE_DISABLE_AUTO_MEMORY".into(), "yes".into());
/// let status = auto_memory_status(&env, &Settings::default());
/// assert!(!status.enabled && status.disabled_by_env_var && !status.disabled_by_setting);
/// ```
pub fn auto_memory_status(env_map: &EnvMap, settings: &Settings) -> AutoMemoryStatus {
    let disable = env(env_map, ENV_DISABLE_AUTO_MEMORY);
    let disabled_by_env_var = is_env_truthy(disable);
    let setting = settings.auto_memory_enabled();
    let disabled_by_setting = !disabled_by_env_var && setting == Some(false);
    let bare_mode = is_env_truthy(env(env_map, ENV_SIMPLE));
    let remote_without_dir = is_env_truthy(env(env_map, ENV_REMOTE))
        && env(env_map, ENV_REMOTE_MEMORY_DIR).is_none_or(str::is_empty);
    let enabled = if disabled_by_env_var {
        false
    } else if is_env_defined_falsy(disable) {
        true
    } else {
        !bare_mode && !remote_without_dir && setting.unwrap_or(true)
    };
    AutoMemoryStatus {
        enabled,
        disabled_by_env_var,
        disabled_by_setting: disabled_by_setting && !enabled,
    }
}
