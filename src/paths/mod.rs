//! Paths: POSIX and Windows helpers, project slugs, memory-dir validation and resolution, the
//! enable chain, the canonical git root and the settings files. Everything but the git-root walk
//! and the settings loading is pure: the host passes env, settings, home, roots and its platform
//! in ([`PathContext`]).

mod enable;
mod git_root;
mod posix;
mod resolve;
mod settings;
mod slug;
mod style;
mod validate;
mod win32;

pub use enable::{
    auto_memory_status, is_auto_memory_enabled, is_env_defined_falsy, is_env_truthy,
    AutoMemoryStatus, EnvMap, Settings, SettingsLayer, ENV_CONFIG_DIR, ENV_DISABLE_AUTO_MEMORY,
    ENV_MEMORY_PATH_OVERRIDE, ENV_REMOTE, ENV_REMOTE_MEMORY_DIR, ENV_SIMPLE,
};
pub use git_root::{find_canonical_git_root, find_git_root};
pub use posix::{basename, dirname, is_absolute, join, join_all, normalize, resolve};
pub use resolve::{
    agent_dir_name, agent_memory_dir, config_home_dir, daily_log_path, entrypoint_path,
    is_agent_memory_path, is_auto_mem_path, memory_base_dir, memory_path_override,
    memory_path_override_in, resolve_memory_dir, team_dir, AgentMemoryScope, PathContext,
    AUTO_MEM_DIRNAME, DAILY_LOG_PATTERN,
};
pub use settings::{
    load_settings, parse_settings_layer, settings_files, LoadedSettings, SettingsFile,
    SettingsSource, MAX_SETTINGS_BYTES,
};
pub(crate) use slug::to_base36;
pub use slug::{djb2, sanitize_path, MAX_SANITIZED_LENGTH};
pub use style::PathStyle;
pub use validate::{check_memory_dir, validate_memory_path, validate_memory_path_in};
pub use win32::{
    win32_basename, win32_dirname, win32_is_absolute, win32_join, win32_normalize, win32_resolve,
};
