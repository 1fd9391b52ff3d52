//! Loading the settings files the reference reads, through the host filesystem: managed policy,
//! user, project and local. Only the two memory keys are taken from each (`autoMemoryEnabled`,
//! `autoMemoryDirectory`); which source may choose the directory is decided by
//! [`Settings::auto_memory_directory`] (policy, flag, local, user — never the committed project
//! file, which a repository controls).

use super::enable::{Settings, SettingsLayer};
use super::resolve::{config_home_dir, PathContext};
use crate::host::FileSystem;
use crate::json::{parse, Json};
use serde::Serialize;

/// Largest settings file read, in bytes; a bigger one is reported and ignored.
pub const MAX_SETTINGS_BYTES: usize = 1024 * 1024;

/// Where one settings source lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingsSource {
    /// Managed (enterprise) policy: `/etc/claude-code/managed-settings.json` on Linux,
    /// `/Library/Application Support/ClaudeCode/managed-settings.json` on macOS,
    /// `C:\ProgramData\ClaudeCode\managed-settings.json` on Windows.
    Policy,
    /// `<config home>/settings.json` (`~/.claude/settings.json`, or under `CLAUDE_CONFIG_DIR`).
    User,
    /// `<project root>/.claude/settings.json`, committed with the project: may turn memory off,
    /// never chooses the directory.
    Project,
    /// `<project root>/.claude/settings.local.json`, this project on this machine.
    Local,
}

/// One settings file and what reading it gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsFile {
    /// Which source it is.
    pub source: SettingsSource,
    /// Its path.
    pub path: String,
    /// The file was there and read as a JSON object.
    pub loaded: bool,
    /// Why a file that is there was not used (not JSON, not an object, too big, unreadable);
    /// absent when it was loaded or does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The settings read from every source, and a report per file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedSettings {
    /// The layers, ready for [`super::resolve_memory_dir`] and [`super::is_auto_memory_enabled`]
    /// (`flag` stays empty: command-line settings are the host's to add).
    pub settings: Settings,
    /// Every file looked at, in the order policy, user, project, local.
    pub files: Vec<SettingsFile>,
}

/// The settings files of a context, in the order policy, user, project, local. The project files
/// are under `project_root` (not the git root: the reference reads `.claude/` of the directory it
/// was started in), the user file under [`config_home_dir`].
///
/// ```
/// use memdir::paths::{settings_files, PathContext, SettingsSource};
/// let ctx = PathContext { home: "/home/u".into(), project_root: "/work/app".into(), ..PathContext::default() };
/// let files = settings_files(&ctx);
/// assert_eq!(files[1], (SettingsSource::User, "/home/u/.claude/settings.json".to_owned()));
/// assert_eq!(files[3], (SettingsSource::Local, "/work/app/.claude/settings.local.json".to_owned()));
/// ```
pub fn settings_files(ctx: &PathContext) -> Vec<(SettingsSource, String)> {
    let style = ctx.style();
    let policy = match ctx.platform.as_str() {
        "win32" => "C:\\ProgramData\\ClaudeCode\\managed-settings.json",
        "darwin" => "/Library/Application Support/ClaudeCode/managed-settings.json",
        _ => "/etc/claude-code/managed-settings.json",
    };
    let mut files = vec![
        (SettingsSource::Policy, policy.to_owned()),
        (
            SettingsSource::User,
            style.join(&[
                &config_home_dir(&ctx.env, &ctx.home, style),
                "settings.json",
            ]),
        ),
    ];
    if !ctx.project_root.is_empty() {
        let claude = style.join(&[&ctx.project_root, ".claude"]);
        files.push((
            SettingsSource::Project,
            style.join(&[&claude, "settings.json"]),
        ));
        files.push((
            SettingsSource::Local,
            style.join(&[&claude, "settings.local.json"]),
        ));
    }
    files
}

/// The memory keys of one settings file's text: `Ok` with the layer (keys of the wrong type are
/// left out), or `Err` with why the text is not a settings object. A leading byte-order mark is
/// allowed.
///
/// ```
/// use memdir::paths::parse_settings_layer;
/// let layer = parse_settings_layer(r#"{ "autoMemoryDirectory": "~/mem", "model": "x" }"#).unwrap();
/// assert_eq!(layer.auto_memory_directory.as_deref(), Some("~/mem"));
/// assert!(parse_settings_layer("[1]").is_err());
/// ```
pub fn parse_settings_layer(text: &str) -> Result<SettingsLayer, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value = parse(text).map_err(|e| e.to_string())?;
    if !matches!(value, Json::Object(_)) {
        return Err("not a JSON object".to_owned());
    }
    Ok(SettingsLayer {
        auto_memory_enabled: value.get("autoMemoryEnabled").and_then(Json::as_bool),
        auto_memory_directory: value
            .get("autoMemoryDirectory")
            .and_then(Json::as_str)
            .map(str::to_owned),
    })
}

/// Read every settings file of the context through `fs` (missing files are simply absent; a file
/// that cannot be read or parsed is reported in `files` and contributes nothing). The result's
/// `settings` is what [`super::resolve_memory_dir`] needs so that a library caller and the CLI
/// resolve the same directory. Never fails.
///
/// ```
/// use memdir::{future::block_on, paths::{load_settings, resolve_memory_dir, PathContext}, MemFs};
/// let fs = MemFs::new();
/// fs.insert_file("/home/u/.claude/settings.json", r#"{"autoMemoryDirectory": "~/notes"}"#);
/// fs.insert_file("/work/app/.claude/settings.json", r#"{"autoMemoryDirectory": "/tmp/evil"}"#);
/// let mut ctx = PathContext { home: "/home/u".into(), project_root: "/work/app".into(), ..PathContext::default() };
/// ctx.settings = block_on(load_settings(&fs, &ctx)).settings;
/// assert_eq!(resolve_memory_dir(&ctx).unwrap(), "/home/u/notes/"); // the project file may not choose
/// ```
pub async fn load_settings<F: FileSystem>(fs: &F, ctx: &PathContext) -> LoadedSettings {
    let mut loaded = LoadedSettings::default();
    for (source, path) in settings_files(ctx) {
        let mut file = SettingsFile {
            source,
            path,
            loaded: false,
            error: None,
        };
        let layer = match fs.read_file(&file.path).await {
            Ok(text) if text.len() > MAX_SETTINGS_BYTES => {
                file.error = Some(format!("larger than {MAX_SETTINGS_BYTES} bytes"));
                None
            }
            Ok(text) => match parse_settings_layer(&text) {
                Ok(layer) => Some(layer),
                Err(why) => {
                    file.error = Some(why);
                    None
                }
            },
            Err(e) if e.is_not_found() || e.has_code("ENOTDIR") => None,
            Err(e) => {
                file.error = Some(e.message.clone());
                None
            }
        };
        if let Some(layer) = layer {
            file.loaded = true;
            let slot = match source {
                SettingsSource::Policy => &mut loaded.settings.policy,
                SettingsSource::User => &mut loaded.settings.user,
                SettingsSource::Project => &mut loaded.settings.project,
                SettingsSource::Local => &mut loaded.settings.local,
            };
            *slot = layer;
        }
        loaded.files.push(file);
    }
    loaded
}
