//! Paths: POSIX helpers, project slugs, memory-dir validation and resolution, the enable chain
//! and the canonical git root. Everything but the git-root walk is pure: the host
//! passes env, settings, home and roots in ([`PathContext`]).

mod enable;
mod git_root;
mod posix;
mod resolve;
mod slug;
mod validate;

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
    resolve_memory_dir, team_dir, AgentMemoryScope, PathContext, AUTO_MEM_DIRNAME,
    DAILY_LOG_PATTERN,
};
pub(crate) use slug::to_base36;
pub use slug::{djb2, sanitize_path, MAX_SANITIZED_LENGTH};
pub use validate::{check_memory_dir, validate_memory_path};
