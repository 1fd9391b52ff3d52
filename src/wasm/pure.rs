//! The pure core, exported to JS under camelCase names (`parseFrontmatter`, …). Each function
//! converts its arguments, calls the core, and converts the result.

use super::convert::to_js;
use super::fields::{self, number_arg, string_arg};
use super::inputs::{from_js, list_from_js, text_arg, AutoMemoryInput, ValidateOptions};
use crate::types::MemoryHeader;
use wasm_bindgen::prelude::*;

/// The wasm half of `truncateEntrypoint` (pkg/lib/api.js): the JS half trims the index and
/// counts its lines and units, then hands over only the first `maxUnits + 1` units of the
/// trimmed text, since nothing past them can be kept (see `entrypoint::truncate_counted_cut`).
/// The answer is offsets (`entrypoint::EntrypointCut`):
/// `{ keepUnits, suffix, lineCount, byteCount, wasLineTruncated, wasByteTruncated }`, the
/// content being `trimmed.slice(0, keepUnits) + suffix`, so the index does not come back.
///
/// ```js
/// const cut = __truncateEntrypointCut(trimmed.slice(0, 25001), lines, trimmed.length);
/// const content = trimmed.slice(0, cut.keepUnits) + cut.suffix;
/// ```
#[wasm_bindgen(js_name = __truncateEntrypointCut, skip_typescript)]
pub fn truncate_entrypoint_cut(
    prefix: JsValue,
    line_count: f64,
    unit_count: f64,
    options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let options: crate::TruncateOptions = from_js(options.unwrap_or(JsValue::UNDEFINED))?;
    let count = |n: f64| {
        if n.is_finite() && n >= 0.0 {
            n as usize
        } else {
            0
        }
    };
    let prefix = string_arg(prefix, "text")?;
    to_js(&crate::entrypoint::truncate_counted_cut(
        &prefix,
        count(line_count),
        count(unit_count),
        &options,
    ))
}

/// Whether an index of this many lines and UTF-16 units (trimmed) is loaded whole under the
/// default caps (`entrypoint::within_caps`): `truncateEntrypoint` then returns the trimmed text
/// without handing it over.
///
/// ```js
/// __entrypointWithinCaps(12, 900); // true
/// ```
#[wasm_bindgen(js_name = __entrypointWithinCaps, skip_typescript)]
pub fn entrypoint_within_caps(line_count: f64, unit_count: f64) -> bool {
    // Counts from JS `String` lengths: finite, whole, far below 2^53.
    crate::entrypoint::within_caps(
        line_count as usize,
        unit_count as usize,
        &crate::TruncateOptions::default(),
    )
}

/// Human-readable size as the reference prints it (`1023 bytes`, `1KB`, `24.4KB`, `1MB`).
///
/// ```js
/// formatFileSize(25000); // "24.4KB"
/// ```
#[wasm_bindgen(js_name = formatFileSize, unchecked_return_type = "string")]
pub fn format_file_size(
    #[wasm_bindgen(unchecked_param_type = "number")] bytes: JsValue,
) -> Result<JsValue, JsValue> {
    Ok(crate::format_file_size(number_arg(bytes, "bytes")?).into())
}

/// A memory file's text: frontmatter (`name`, `description`, `type`), then the body. Whatever
/// the strings hold, `parseFrontmatter` reads the same fields back.
///
/// ```js
/// formatMemoryFile({ name: "Role", description: "Senior Go dev", type: "user" }, "Body");
/// ```
#[wasm_bindgen(js_name = formatMemoryFile)]
pub fn format_memory_file(
    #[wasm_bindgen(unchecked_param_type = "MemoryFields")] header: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] body: JsValue,
) -> Result<String, JsValue> {
    let body = string_arg(body, "body")?;
    let body = body.as_str();
    let fields: crate::MemoryFields = from_js(header)?;
    Ok(crate::format_memory_file(&fields, body))
}

/// The manifest the recall model reads: one line per memory, as the reference writes it. A
/// `mtimeMs` no JS `Date` can hold (NaN, beyond ±8.64e15) throws `INVALID_INPUT`, as the
/// reference throws for it.
///
/// ```js
/// formatManifest([{ filename: "user_role.md", mtimeMs: 1700000000123.9, type: "user", description: "Senior Go dev" }]);
/// // "- [user] user_role.md (2023-11-14T22:13:20.123Z): Senior Go dev"
/// ```
#[wasm_bindgen(js_name = formatManifest, unchecked_return_type = "string")]
pub fn format_manifest(
    #[wasm_bindgen(unchecked_param_type = "ManifestEntry[]")] headers: JsValue,
) -> Result<JsValue, JsValue> {
    let headers: Vec<MemoryHeader> = list_from_js(headers)?;
    super::error::throw(crate::manifest::format_manifest_checked(&headers)).map(JsValue::from)
}

/// The wasm half of `formatManifest` (pkg/lib/api.js) for headers JS has checked are plain
/// (string `filename`, number `mtimeMs`, string or absent `type`, `description` and `filePath`,
/// no lone surrogate): `manifest::format_packed` with the texts' lengths in, the manifest with
/// a NUL for each filename and description out, which JS fills from the strings it holds.
/// `undefined` when anything needs [`format_manifest`]'s checks, which JS then calls for the
/// exact error.
///
/// ```js
/// __formatManifestPacked(new Float64Array([1700000000123.9, 12, 4, 13, 0]), "user");
/// // "- [user] \0 (2023-11-14T22:13:20.123Z): \0"
/// ```
#[wasm_bindgen(js_name = __formatManifestPacked, skip_typescript)]
pub fn format_manifest_packed(numbers: &[f64], types: &str) -> Option<String> {
    crate::manifest::format_packed(numbers, types)
}

/// Parse one MEMORY.md line `- [Title](file.md) — hook`; `null` when it is not an entry.
///
/// ```js
/// parseIndexEntry("- [Role](user_role.md) — Senior Go dev"); // { title, file, hook }
/// ```
#[wasm_bindgen(js_name = parseIndexEntry, unchecked_return_type = "IndexEntry | null")]
pub fn parse_index_entry(
    #[wasm_bindgen(unchecked_param_type = "string")] line: JsValue,
) -> Result<JsValue, JsValue> {
    let line = text_arg(line, "line", "parseIndexEntry")?;
    match crate::parse_index_entry(&line.text) {
        Some(entry) => super::convert::to_js_carried(&entry, line.carried),
        None => Ok(JsValue::NULL),
    }
}

/// Format one MEMORY.md line from `{ title, file, hook }`.
///
/// ```js
/// formatIndexEntry({ title: "Role", file: "user_role.md", hook: "Senior Go dev" });
/// ```
#[wasm_bindgen(js_name = formatIndexEntry, unchecked_return_type = "string")]
pub fn format_index_entry(
    #[wasm_bindgen(unchecked_param_type = "IndexEntry")] entry: JsValue,
) -> Result<JsValue, JsValue> {
    let entry: crate::IndexEntry = from_js(entry)?;
    Ok(JsValue::from(crate::format_index_entry(&entry)))
}

/// Whole days since `mtimeMs` (elapsed 24-hour periods, never negative).
///
/// ```js
/// memoryAgeDays(Date.now() - 3 * 86400000, Date.now()); // 3
/// ```
#[wasm_bindgen(js_name = memoryAgeDays)]
#[allow(non_snake_case)]
pub fn memory_age_days(
    #[wasm_bindgen(unchecked_param_type = "number")] mtimeMs: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] nowMs: JsValue,
) -> Result<f64, JsValue> {
    let (mtime, now) = times(mtimeMs, nowMs)?;
    Ok(crate::memory_age_days(mtime, now) as f64)
}

/// The two times the age functions take, each a number.
fn times(mtime_ms: JsValue, now_ms: JsValue) -> Result<(f64, f64), JsValue> {
    Ok((
        number_arg(mtime_ms, "mtimeMs")?,
        number_arg(now_ms, "nowMs")?,
    ))
}

/// `today`, `yesterday` or `N days ago`.
///
/// ```js
/// memoryAge(Date.now() - 86400000, Date.now()); // "yesterday"
/// ```
#[wasm_bindgen(js_name = memoryAge, unchecked_return_type = "string")]
#[allow(non_snake_case)]
pub fn memory_age(
    #[wasm_bindgen(unchecked_param_type = "number")] mtimeMs: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] nowMs: JsValue,
) -> Result<JsValue, JsValue> {
    let (mtime, now) = times(mtimeMs, nowMs)?;
    Ok(crate::memory_age(mtime, now).into())
}

/// The staleness caveat for a memory two or more days old; `""` otherwise.
///
/// ```js
/// memoryFreshnessText(Date.now() - 5 * 86400000, Date.now()); // "This memory is 5 days old. …"
/// ```
#[wasm_bindgen(js_name = memoryFreshnessText, unchecked_return_type = "string")]
#[allow(non_snake_case)]
pub fn memory_freshness_text(
    #[wasm_bindgen(unchecked_param_type = "number")] mtimeMs: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] nowMs: JsValue,
) -> Result<JsValue, JsValue> {
    let (mtime, now) = times(mtimeMs, nowMs)?;
    Ok(crate::memory_freshness_text(mtime, now).into())
}

/// The header shown above a surfaced memory, with its age.
///
/// ```js
/// memoryHeader("/m/a.md", Date.now() - 86400000, Date.now()); // "Memory (saved yesterday): /m/a.md:"
/// ```
#[wasm_bindgen(js_name = memoryHeader, unchecked_return_type = "string")]
#[allow(non_snake_case)]
pub fn memory_header(
    #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] mtimeMs: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] nowMs: JsValue,
) -> Result<JsValue, JsValue> {
    let path = string_arg(path, "path")?;
    let (mtime, now) = times(mtimeMs, nowMs)?;
    Ok(JsValue::from(crate::memory_header(&path, mtime, now)))
}

/// The project slug the reference uses for a project path (long paths get a hash suffix).
///
/// ```js
/// sanitizePath("/Users/foo/my-project"); // "-Users-foo-my-project"
/// ```
#[wasm_bindgen(js_name = sanitizePath)]
pub fn sanitize_path(
    #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
) -> Result<String, JsValue> {
    Ok(crate::sanitize_path(
        &text_arg(path, "path", "sanitizePath")?.text,
    ))
}

/// The memory section of a system prompt for a mode: `"individual"`, `"combined"` (private +
/// team), `"daily-log"` or `"agent"`. Same sections, order and headings as the reference; the
/// host may rename tools (`toolNames`) and replace any section (`sectionOverrides`).
///
/// ```js
/// const prompt = buildMemoryPrompt({ mode: "individual", memoryDir: "/home/me/.claude/projects/-app/memory/" });
/// ```
#[wasm_bindgen(js_name = buildMemoryPrompt, unchecked_return_type = "string")]
pub fn build_memory_prompt(
    #[wasm_bindgen(unchecked_param_type = "PromptOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let options: crate::prompt::PromptOptions = from_js(options)?;
    Ok(JsValue::from(crate::prompt::build_memory_prompt(&options)))
}

/// Validate a memory-directory setting as the reference does: the normalised path with exactly
/// one trailing separator, or `null` when it is unsafe (relative, too short, NUL …). `~/` is
/// expanded against `home` only with `expandTilde` (settings values, not the env override). With
/// `platform: "win32"` the Windows rules apply (drive letters, both separators, `\` in the
/// result; UNC shares refused as by the reference).
///
/// ```js
/// validateMemoryPath("~/mem", { expandTilde: true, home: "/home/u" }); // "/home/u/mem/"
/// validateMemoryPath("/a"); // null
/// validateMemoryPath("C:/Users/u/mem", { platform: "win32" }); // "C:\\Users\\u\\mem\\"
/// ```
#[wasm_bindgen(js_name = validateMemoryPath, unchecked_return_type = "string | null")]
pub fn validate_memory_path(
    #[wasm_bindgen(unchecked_param_type = "string")] raw: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ expandTilde?: boolean; home?: string; platform?: string }"
    )]
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let raw = text_arg(raw, "path", "validateMemoryPath")?.text;
    let options: ValidateOptions = from_js(options)?;
    let style = crate::paths::PathStyle::of_platform(&options.platform);
    let valid =
        crate::paths::validate_memory_path_in(style, &raw, options.expand_tilde, &options.home);
    Ok(valid.map_or(JsValue::NULL, |path| JsValue::from_str(&path)))
}

/// Whether auto memory is on, by the reference's chain over the environment and settings you
/// pass (`CLAUDE_CODE_DISABLE_AUTO_MEMORY`, bare mode, remote mode, `autoMemoryEnabled`).
///
/// ```js
/// isAutoMemoryEnabled({ env: process.env, settings: { autoMemoryEnabled: false } }); // false
/// ```
#[wasm_bindgen(js_name = isAutoMemoryEnabled)]
pub fn is_auto_memory_enabled(
    #[wasm_bindgen(
        unchecked_param_type = "{ env?: Record<string, string | undefined>; settings?: MemorySettings }"
    )]
    input: JsValue,
) -> Result<bool, JsValue> {
    let input: AutoMemoryInput = from_js(input)?;
    Ok(crate::paths::is_auto_memory_enabled(
        &input.env,
        &input.settings,
    ))
}

/// The host filesystem of a context object (`context.fs`), if any, and the context with its
/// platform taken from `fs.platform` when the context names none (`nodeFs()` carries
/// `process.platform`).
fn context_with_fs(
    context: &JsValue,
) -> Result<(Option<super::host::JsFs>, crate::paths::PathContext), JsValue> {
    let fs_value = js_sys::Reflect::get(context, &"fs".into()).unwrap_or(JsValue::UNDEFINED);
    let mut ctx: crate::paths::PathContext = from_js(context.clone())?;
    if fs_value.is_undefined() || fs_value.is_null() {
        return Ok((None, ctx));
    }
    if ctx.platform.is_empty() {
        if let Some(platform) = js_sys::Reflect::get(&fs_value, &"platform".into())
            .ok()
            .and_then(|p| p.as_string())
        {
            ctx.platform = platform;
        }
    }
    let fs = super::host::JsFs::new(fs_value).map_err(fields::invalid_input)?;
    Ok((Some(fs), ctx))
}

/// Resolve a project's memory directory as the reference does: the env override, then the
/// settings chain, else `<config home>/projects/<slug of the canonical git root>/memory/`. With
/// `fs`, the git root is found through it (all worktrees of a repository share one directory)
/// and, when `settings` is not given, the settings files are read through it as `loadSettings`
/// does (so `memdir path` and this agree); otherwise pass `gitRoot` or the project root is used.
/// `platform: "win32"` (or an `fs` whose `platform` is `"win32"`, as `nodeFs()` on Windows)
/// gives Windows paths: `C:\Users\u\.claude\projects\C--Users-u-app\memory\`.
///
/// ```js
/// import { nodeFs } from "memdir/node";
/// const dir = await resolveMemoryDir({ fs: nodeFs(), projectRoot: process.cwd(), home: os.homedir(), env: process.env });
/// ```
#[wasm_bindgen(js_name = resolveMemoryDir, unchecked_return_type = "Promise<string>")]
pub fn resolve_memory_dir(
    #[wasm_bindgen(unchecked_param_type = "PathContext & { fs?: MemoryFs }")] context: JsValue,
) -> Result<js_sys::Promise, JsValue> {
    let settings_given = js_sys::Reflect::get(&context, &"settings".into())
        .map(|s| !s.is_undefined() && !s.is_null())
        .unwrap_or(false);
    let (fs, mut ctx) = context_with_fs(&context)?;
    Ok(super::promise(async move {
        if let Some(fs) = &fs {
            if !settings_given {
                ctx.settings = crate::paths::load_settings(fs, &ctx).await.settings;
            }
            if ctx.git_root.is_none() && !ctx.project_root.is_empty() {
                ctx.git_root = crate::paths::find_canonical_git_root(fs, &ctx.project_root).await;
            }
        }
        let dir = crate::paths::resolve_memory_dir(&ctx).map_err(super::error::to_js)?;
        Ok(JsValue::from_str(&dir))
    }))
}

/// Read the settings files the reference reads, through `fs`: managed policy, user
/// (`<config home>/settings.json`), project (`.claude/settings.json`) and local
/// (`.claude/settings.local.json`). Resolves to `{ settings, files }`: `settings` ready for
/// `resolveMemoryDir` and `isAutoMemoryEnabled` (only policy, local and user may choose the
/// directory; the committed project file may only turn memory off), `files` what was found
/// (`{ source, path, loaded, error? }`). A file that is missing, unreadable or not JSON
/// contributes nothing; never rejects for those.
///
/// ```js
/// const { settings, files } = await loadSettings({ fs: nodeFs(), projectRoot: process.cwd(), home: os.homedir(), env: process.env });
/// isAutoMemoryEnabled({ env: process.env, settings });
/// ```
#[wasm_bindgen(js_name = loadSettings, unchecked_return_type = "Promise<LoadedSettings>")]
pub fn load_settings(
    #[wasm_bindgen(unchecked_param_type = "PathContext & { fs: MemoryFs }")] context: JsValue,
) -> Result<js_sys::Promise, JsValue> {
    let (fs, ctx) = context_with_fs(&context)?;
    let fs = fs.ok_or_else(|| {
        fields::invalid_input(
            "loadSettings needs `fs`, the filesystem to read the settings from".to_owned(),
        )
    })?;
    Ok(super::promise(async move {
        to_js(&crate::paths::load_settings(&fs, &ctx).await)
    }))
}

/// The repository root that names a project's memory directory: the nearest directory with a
/// `.git` entry above `start`, or — for a linked worktree — the main repository's root, so all
/// worktrees share one memory. `null` outside a repository.
///
/// ```js
/// import { nodeFs } from "memdir/node";
/// await findCanonicalGitRoot(nodeFs(), process.cwd()); // "/home/me/app"
/// ```
#[wasm_bindgen(js_name = findCanonicalGitRoot, unchecked_return_type = "Promise<string | null>")]
pub fn find_canonical_git_root(
    #[wasm_bindgen(unchecked_param_type = "MemoryFs")] fs: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] start: JsValue,
) -> Result<js_sys::Promise, JsValue> {
    let start = string_arg(start, "start")?;
    let fs = super::host::JsFs::new(fs).map_err(fields::invalid_input)?;
    Ok(super::promise(async move {
        Ok(
            match crate::paths::find_canonical_git_root(&fs, &start).await {
                Some(root) => JsValue::from_str(&root),
                None => JsValue::NULL,
            },
        )
    }))
}

/// Which secret rules match `text`: `[{ ruleId, label }]`, one per rule, in rule order. The
/// matched text itself is never returned.
///
/// ```js
/// scanForSecrets("token ghp_" + "a".repeat(36)); // [{ ruleId: "github-pat", label: "GitHub PAT" }]
/// ```
#[wasm_bindgen(js_name = scanForSecrets, unchecked_return_type = "SecretFinding[]")]
pub fn scan_for_secrets(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&crate::secrets::scan_for_secrets(
        &text_arg(text, "text", "scanForSecrets")?.text,
    ))
}

/// `text` with every secret the rules find replaced by `[REDACTED]`.
///
/// ```js
/// redactSecrets("key: ghp_" + "a".repeat(36)); // "key: [REDACTED]"
/// ```
#[wasm_bindgen(js_name = redactSecrets, unchecked_return_type = "string")]
pub fn redact_secrets(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsValue> {
    let text = text_arg(text, "text", "redactSecrets")?;
    Ok(text.result_to_js(crate::secrets::redact_secrets(&text.text)))
}

/// Check a team-memory key (a relative path) for hidden traversal: NUL, URL-encoded or
/// Unicode-normalised `..`/`/`, backslashes, absolute keys. Returns the key, or throws a
/// `MemdirError` whose `code` starts with `PATH_`.
///
/// ```js
/// sanitizePathKey("notes/api.md"); // "notes/api.md"
/// sanitizePathKey("%2e%2e%2fx");   // throws, code "PATH_URL_ENCODED_TRAVERSAL"
/// ```
#[wasm_bindgen(js_name = sanitizePathKey, unchecked_return_type = "string")]
pub fn sanitize_path_key(
    #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
) -> Result<JsValue, JsValue> {
    let key = text_arg(key, "key", "sanitizePathKey")?.text;
    super::error::throw(crate::path_key::sanitize_path_key(&key).map(str::to_owned))
        .map(JsValue::from)
}

/// Every `MemdirError` code, from the core's one table, with whether the caller's input caused
/// it (a bad argument, name, path or content) rather than the host or the directory's state.
///
/// ```js
/// const inputCodes = new Set(errorCodes().filter((c) => c.input).map((c) => c.code));
/// inputCodes.has("INVALID_INPUT"); // true
/// ```
#[wasm_bindgen(
    js_name = errorCodes,
    unchecked_return_type = "{ code: MemdirErrorCode; input: boolean }[]"
)]
pub fn error_codes() -> JsValue {
    let list = js_sys::Array::new();
    for code in crate::Code::ALL {
        let entry = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&entry, &"code".into(), &code.as_str().into());
        let _ = js_sys::Reflect::set(&entry, &"input".into(), &code.is_input().into());
        list.push(&entry);
    }
    list.into()
}

/// Every file the library keeps in a memory directory besides the memories and `MEMORY.md`
/// (locks, journals, recall's caches), from the core's one list: what an export or a sync may
/// leave out (the caches are rebuilt when missing) and what a file browser may hide.
///
/// ```js
/// const caches = libraryFiles().filter((f) => f.kind === "cache").map((f) => f.name);
/// // [".memdir-vectors", ".memdir-index"]
/// ```
#[wasm_bindgen(
    js_name = libraryFiles,
    unchecked_return_type = "{ name: string; kind: \"lock\" | \"journal\" | \"cache\" }[]"
)]
pub fn library_files() -> JsValue {
    use crate::store::LibraryFileKind;
    let list = js_sys::Array::new();
    for file in crate::store::LIBRARY_FILES {
        let kind = match file.kind {
            LibraryFileKind::Lock => "lock",
            LibraryFileKind::Journal => "journal",
            LibraryFileKind::Cache => "cache",
        };
        let entry = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&entry, &"name".into(), &file.name.into());
        let _ = js_sys::Reflect::set(&entry, &"kind".into(), &kind.into());
        list.push(&entry);
    }
    list.into()
}

/// The default caps of `truncateEntrypoint` (and of a `Memdir`'s index): the reference's 200
/// lines and 25,000 UTF-16 units.
///
/// ```js
/// const { maxLines, maxUnits } = entrypointCaps(); // 200, 25000
/// ```
#[wasm_bindgen(
    js_name = entrypointCaps,
    unchecked_return_type = "{ maxLines: number; maxUnits: number }"
)]
pub fn entrypoint_caps() -> JsValue {
    let caps = crate::TruncateOptions::default();
    numbers(&[("maxLines", caps.max_lines), ("maxUnits", caps.max_units)])
}

/// A plain object of numbers.
fn numbers(entries: &[(&str, usize)]) -> JsValue {
    let out = js_sys::Object::new();
    for (key, n) in entries {
        let _ = js_sys::Reflect::set(&out, &(*key).into(), &(*n as f64).into());
    }
    out.into()
}

/// The 0-based lines of the trimmed index that the caps keep from the model, wholly or in
/// part, as `{ start, end }` (empty, `start === end`, when nothing is cut).
///
/// ```js
/// linesCut("a\nb\nc\nd", { maxLines: 2 }); // { start: 2, end: 4 }
/// ```
#[wasm_bindgen(js_name = linesCut, unchecked_return_type = "{ start: number; end: number }")]
pub fn lines_cut(
    #[wasm_bindgen(unchecked_param_type = "string")] raw: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "TruncateOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let raw = string_arg(raw, "text")?;
    let options: crate::TruncateOptions = from_js(options)?;
    let cut = crate::entrypoint::lines_cut(&raw, &options);
    Ok(numbers(&[("start", cut.start), ("end", cut.end)]))
}

/// The slug `save` derives a file name from: ASCII letters and digits, lowercased, runs of
/// anything else as one `_`, at most 60 characters; `memory` when nothing is left.
///
/// ```js
/// slugify("Prefers tabs, not spaces!"); // "prefers_tabs_not_spaces"
/// ```
#[wasm_bindgen(unchecked_return_type = "string")]
pub fn slugify(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
) -> Result<JsValue, JsValue> {
    Ok(crate::store::names::slugify(&text_arg(name, "name", "slugify")?.text).into())
}

/// The file name `save` gives a memory when none is named: `<type>_<slug>.md`, then
/// `<type>_<slug>-2.md`, `-3` … for `attempt` 2, 3 … (the first name not taken).
///
/// ```js
/// derivedFileName("feedback", "Use tabs", 1); // "feedback_use_tabs.md"
/// derivedFileName("feedback", "Use tabs", 2); // "feedback_use_tabs-2.md"
/// ```
#[wasm_bindgen(js_name = derivedFileName, unchecked_return_type = "string")]
pub fn derived_file_name(
    #[wasm_bindgen(unchecked_param_type = "MemoryType")] memory_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] attempt: JsValue,
) -> Result<JsValue, JsValue> {
    let attempt = fields::whole(&attempt)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| fields::invalid("attempt", "expected a whole number from 0 to 2^32 - 1"))?;
    let memory_type = super::error::throw(crate::store::names::check_memory_type(&string_arg(
        memory_type,
        "type",
    )?))?;
    let name = text_arg(name, "name", "derivedFileName")?.text;
    Ok(crate::store::names::derived_file_name(memory_type, &name, attempt).into())
}

/// MEMORY.md with the entry for `entry.file` replaced in place, or appended when it has none,
/// as `save` writes it (later lines pointing at the same file dropped; every other line kept
/// byte for byte).
///
/// ```js
/// upsertIndexEntry("# M", { title: "B", file: "b.md", hook: "new" }); // "# M\n- [B](b.md) — new\n"
/// ```
#[wasm_bindgen(js_name = upsertIndexEntry, unchecked_return_type = "string")]
pub fn upsert_index_entry(
    #[wasm_bindgen(unchecked_param_type = "string")] index: JsValue,
    #[wasm_bindgen(unchecked_param_type = "IndexEntry")] entry: JsValue,
) -> Result<JsValue, JsValue> {
    let index = string_arg(index, "index")?;
    let entry: crate::IndexEntry = from_js(entry)?;
    Ok(crate::index_entry::upsert_index_entry(&index, &entry).into())
}
