//! Paths, slugs, validation, the enable chain, git roots, ages, manifest and index entries,
//! against the reference's test vectors (reference §2, §5.3, §7, §17).

mod common;

use common::block_on;
use memdir::age::memory_freshness_note;
use memdir::index_entry::{index_entries, remove_index_entry, upsert_index_entry};
use memdir::manifest::iso_timestamp;
use memdir::paths::{
    agent_memory_dir, auto_memory_status, daily_log_path, djb2, find_canonical_git_root,
    find_git_root, is_agent_memory_path, is_auto_mem_path, is_auto_memory_enabled,
    resolve_memory_dir, sanitize_path, team_dir, validate_memory_path, AgentMemoryScope,
    AutoMemoryStatus, EnvMap, PathContext, Settings,
};
use memdir::{
    format_index_entry, format_manifest, memory_age, memory_age_days, memory_freshness_text,
    memory_header, parse_index_entry, IndexEntry, MemFs, MemoryHeader, MemoryType,
};

const DAY: f64 = 86_400_000.0;
const NOW: f64 = 1_700_000_000_000.0;

fn env(pairs: &[(&str, &str)]) -> EnvMap {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

// ---------------------------------------------------------------- sanitize_path (§2.5, §17)

#[test]
fn sanitize_path_vectors() {
    assert_eq!(
        sanitize_path("/Users/foo/my-project"),
        "-Users-foo-my-project"
    );
    assert_eq!(
        sanitize_path("C:\\Users\\foo\\my project"),
        "C--Users-foo-my-project"
    );
    assert_eq!(sanitize_path("/home/jörg/😀proj"), "-home-j-rg---proj");
}

#[test]
fn sanitize_path_long_path_gets_djb2_suffix() {
    let path = format!(
        "/home/user/{}project",
        "very-long-directory-name/".repeat(10)
    );
    assert_eq!(path.len(), 268);
    let slug = sanitize_path(&path);
    let head: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(200)
        .collect();
    assert_eq!(slug, format!("{head}-50u9ca"));
}

#[test]
fn sanitize_path_boundary_at_200() {
    let exactly = "a".repeat(200);
    assert_eq!(sanitize_path(&exactly), exactly);
    // 199 letters + one emoji = 201 units: cut and hashed.
    let over = format!("{}😀", "a".repeat(199));
    let slug = sanitize_path(&over);
    assert!(slug.starts_with(&format!("{}-", "a".repeat(199))));
    assert_eq!(slug.len(), 201 + djb2_suffix_len(&over));
}

fn djb2_suffix_len(name: &str) -> usize {
    let mut n = i64::from(djb2(name)).unsigned_abs();
    let mut digits = 1;
    while n >= 36 {
        n /= 36;
        digits += 1;
    }
    digits
}

#[test]
fn djb2_vectors() {
    assert_eq!(djb2("abc"), 96354);
    // UTF-16 units: "😀" is 0xD83D, 0xDE00.
    assert_eq!(djb2("😀"), 0xD83D * 31 + 0xDE00);
}

// ---------------------------------------------------------- validate_memory_path (§2.4, §17)

#[test]
fn validate_memory_path_vectors() {
    let home = "/home/u";
    // Env override: no tilde expansion.
    assert_eq!(
        validate_memory_path("/mnt/mem/", false, home).as_deref(),
        Some("/mnt/mem/")
    );
    assert_eq!(validate_memory_path("~/mem", false, home), None);
    // Settings: tilde expansion.
    assert_eq!(
        validate_memory_path("~/mem", true, home).as_deref(),
        Some("/home/u/mem/")
    );
    assert_eq!(validate_memory_path("~/", true, home), None);
    assert_eq!(validate_memory_path("/a", true, home), None);
    assert_eq!(
        validate_memory_path("/ab//", true, home).as_deref(),
        Some("/ab/")
    );
    assert_eq!(validate_memory_path("rel", true, home), None);
}

#[test]
fn validate_memory_path_section_2_4_examples() {
    let home = "/home/u";
    let cases: &[(&str, bool, Option<&str>)] = &[
        ("", true, None),
        ("/", false, None),
        ("/a", false, None),
        ("/ab", false, Some("/ab/")),
        ("/tmp/mem///", false, Some("/tmp/mem/")),
        ("/tmp/mem\\\\", false, Some("/tmp/mem/")),
        ("relative/x", false, None),
        ("~/", true, None),
        ("~/.", true, None),
        ("~/..", true, None),
        ("~/foo/..", true, None),
        ("~", true, None),
        ("~\\mem", true, Some("/home/u/mem/")),
        ("~/../x", true, Some("/home/x/")),
        ("~/mem", true, Some("/home/u/mem/")),
        ("~/mem", false, None),
        (" /mnt/m", false, None),
        ("//x", false, None),
        ("//xy", false, Some("/xy/")),
        ("/a/./b/../c", false, Some("/a/c/")),
        ("/a\0b", false, None),
    ];
    for (raw, expand, want) in cases {
        assert_eq!(
            validate_memory_path(raw, *expand, home).as_deref(),
            *want,
            "validate_memory_path({raw:?}, {expand})"
        );
    }
}

#[test]
fn validate_memory_path_leaves_text_unnormalised() {
    // No NFC tables: ASCII passes through unchanged, and so does already-composed text.
    assert_eq!(
        validate_memory_path("/srv/Memory-01", false, "").as_deref(),
        Some("/srv/Memory-01/")
    );
    assert_eq!(
        validate_memory_path("/srv/jörg", false, "").as_deref(),
        Some("/srv/jörg/")
    );
}

// ------------------------------------------------------------------ enable chain (§2.1)

#[test]
fn enable_chain_rules_in_order() {
    let off = Settings {
        auto_memory_enabled: Some(false),
        ..Settings::default()
    };
    let none = Settings::default();
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a Settings, bool);
    let cases: &[Case] = &[
        (&[], &none, true),
        (&[], &off, false),
        (&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")], &none, false),
        (
            &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", " TRUE ")],
            &none,
            false,
        ),
        (
            &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "\u{feff}on")],
            &none,
            false,
        ),
        // Defined-falsy force-enables, even in bare mode and against settings (§16 item 19).
        (
            &[
                ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0"),
                ("CLAUDE_CODE_SIMPLE", "1"),
            ],
            &off,
            true,
        ),
        (&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "Off")], &off, true),
        // Empty and unknown values fall through.
        (&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "")], &off, false),
        (&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "maybe")], &none, true),
        (&[("CLAUDE_CODE_SIMPLE", "yes")], &none, false),
        (&[("CLAUDE_CODE_REMOTE", "1")], &none, false),
        (
            &[
                ("CLAUDE_CODE_REMOTE", "1"),
                ("CLAUDE_CODE_REMOTE_MEMORY_DIR", ""),
            ],
            &none,
            false,
        ),
        (
            &[
                ("CLAUDE_CODE_REMOTE", "1"),
                ("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/r"),
            ],
            &none,
            true,
        ),
        (
            &[
                ("CLAUDE_CODE_REMOTE", "1"),
                ("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/r"),
            ],
            &off,
            false,
        ),
    ];
    for (pairs, settings, want) in cases {
        assert_eq!(
            is_auto_memory_enabled(&env(pairs), settings),
            *want,
            "{pairs:?} {settings:?}"
        );
    }
}

#[test]
fn enable_status_reports_why() {
    let off = Settings {
        auto_memory_enabled: Some(false),
        ..Settings::default()
    };
    assert_eq!(
        auto_memory_status(&env(&[]), &off),
        AutoMemoryStatus {
            enabled: false,
            disabled_by_env_var: false,
            disabled_by_setting: true
        }
    );
    assert_eq!(
        auto_memory_status(&env(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")]), &off),
        AutoMemoryStatus {
            enabled: false,
            disabled_by_env_var: true,
            disabled_by_setting: false
        }
    );
    let bare = auto_memory_status(&env(&[("CLAUDE_CODE_SIMPLE", "1")]), &Settings::default());
    assert!(!bare.enabled && !bare.disabled_by_env_var && !bare.disabled_by_setting);
}

#[test]
fn settings_layers_precedence() {
    let mut settings = Settings::default();
    settings.user.auto_memory_enabled = Some(false);
    settings.local.auto_memory_enabled = Some(true);
    assert_eq!(settings.auto_memory_enabled(), Some(true));
    // A project may opt out.
    settings.project.auto_memory_enabled = Some(false);
    settings.local.auto_memory_enabled = None;
    assert!(!is_auto_memory_enabled(&env(&[]), &settings));
}

#[test]
fn settings_deserialize_from_js_shape() {
    let ctx: PathContext = serde_yaml::from_str(
        r#"{ "env": { "CLAUDE_CODE_SIMPLE": "1" },
             "settings": { "autoMemoryEnabled": true, "policy": { "autoMemoryDirectory": "/p/mem" } },
             "home": "/home/u", "projectRoot": "/work/app" }"#,
    )
    .unwrap();
    assert_eq!(
        ctx.env.get("CLAUDE_CODE_SIMPLE").map(String::as_str),
        Some("1")
    );
    assert_eq!(ctx.settings.auto_memory_enabled(), Some(true));
    assert_eq!(ctx.settings.auto_memory_directory(), Some("/p/mem"));
    assert!(!is_auto_memory_enabled(&ctx.env, &ctx.settings));
    assert_eq!(resolve_memory_dir(&ctx).unwrap(), "/p/mem/");
}

// ------------------------------------------------------------ resolve_memory_dir (§2.2–2.3)

fn ctx() -> PathContext {
    PathContext {
        home: "/home/u".into(),
        project_root: "/work/app/sub".into(),
        ..PathContext::default()
    }
}

#[test]
fn resolve_default_uses_git_root_slug() {
    let mut c = ctx();
    assert_eq!(
        resolve_memory_dir(&c).unwrap(),
        "/home/u/.claude/projects/-work-app-sub/memory/"
    );
    c.git_root = Some("/work/app".into());
    assert_eq!(
        resolve_memory_dir(&c).unwrap(),
        "/home/u/.claude/projects/-work-app/memory/"
    );
}

#[test]
fn resolve_bases() {
    let mut c = ctx();
    c.env = env(&[("CLAUDE_CONFIG_DIR", "/cfg/")]);
    assert_eq!(
        resolve_memory_dir(&c).unwrap(),
        "/cfg/projects/-work-app-sub/memory/"
    );
    // `??`: an empty CLAUDE_CONFIG_DIR is used as-is; the reference would return the relative
    // path `projects/-work-app-sub/memory/`, which is refused (#19 item 12).
    c.env = env(&[("CLAUDE_CONFIG_DIR", "")]);
    let err = resolve_memory_dir(&c).unwrap_err();
    assert_eq!(err.code, memdir::Code::InvalidInput);
    assert!(
        err.message.contains("projects/-work-app-sub/memory/"),
        "{}",
        err.message
    );
    c.env = env(&[
        ("CLAUDE_CONFIG_DIR", "/cfg"),
        ("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/remote"),
    ]);
    assert_eq!(
        resolve_memory_dir(&c).unwrap(),
        "/remote/projects/-work-app-sub/memory/"
    );
    c.env = env(&[("CLAUDE_CODE_REMOTE_MEMORY_DIR", "")]);
    assert_eq!(
        resolve_memory_dir(&c).unwrap(),
        "/home/u/.claude/projects/-work-app-sub/memory/"
    );
}

#[test]
fn resolve_env_override_then_settings_chain() {
    let mut c = ctx();
    c.settings.user.auto_memory_directory = Some("~/notes".into());
    assert_eq!(resolve_memory_dir(&c).unwrap(), "/home/u/notes/");
    c.env = env(&[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/mnt/mem")]);
    assert_eq!(resolve_memory_dir(&c).unwrap(), "/mnt/mem/");
    // The env override is not tilde-expanded: invalid, so settings apply.
    c.env = env(&[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "~/x")]);
    assert_eq!(resolve_memory_dir(&c).unwrap(), "/home/u/notes/");
}

#[test]
fn settings_directory_first_defined_wins_before_validation() {
    let mut c = ctx();
    c.settings.user.auto_memory_directory = Some("/good/dir".into());
    c.settings.local.auto_memory_directory = Some("/local/dir".into());
    assert_eq!(resolve_memory_dir(&c).unwrap(), "/local/dir/");
    // An invalid higher-priority value masks the valid one: default path.
    c.settings.policy.auto_memory_directory = Some(String::new());
    assert_eq!(
        resolve_memory_dir(&c).unwrap(),
        "/home/u/.claude/projects/-work-app-sub/memory/"
    );
    // The project layer never chooses the directory.
    let mut p = ctx();
    p.settings.project.auto_memory_directory = Some("/evil".into());
    assert_eq!(
        resolve_memory_dir(&p).unwrap(),
        "/home/u/.claude/projects/-work-app-sub/memory/"
    );
}

#[test]
fn memory_dir_helpers() {
    assert_eq!(
        daily_log_path("/m/", 2024, 3, 7),
        "/m/logs/2024/03/2024-03-07.md"
    );
    assert_eq!(
        daily_log_path("/m", 2025, 12, 31),
        "/m/logs/2025/12/2025-12-31.md"
    );
    assert_eq!(team_dir("/m/"), "/m/team/");
    assert!(is_auto_mem_path("/m/team/a.md", "/m/"));
    assert!(!is_auto_mem_path("/m", "/m/"));
    assert!(!is_auto_mem_path("/memory-evil/a.md", "/memory/"));
    assert!(!is_auto_mem_path("/M/a.md", "/m/"));
}

#[test]
fn agent_memory_dirs_per_scope() {
    let mut c = ctx();
    c.cwd = "/work/app".into();
    c.git_root = Some("/work/app".into());
    assert_eq!(
        agent_memory_dir(&c, "plug:rev", AgentMemoryScope::User),
        "/home/u/.claude/agent-memory/plug-rev/"
    );
    assert_eq!(
        agent_memory_dir(&c, "rev", AgentMemoryScope::Project),
        "/work/app/.claude/agent-memory/rev/"
    );
    assert_eq!(
        agent_memory_dir(&c, "rev", AgentMemoryScope::Local),
        "/work/app/.claude/agent-memory-local/rev/"
    );
    c.env = env(&[("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/remote")]);
    assert_eq!(
        agent_memory_dir(&c, "rev", AgentMemoryScope::Local),
        "/remote/projects/-work-app/agent-memory-local/rev/"
    );
    assert_eq!(
        agent_memory_dir(&c, "rev", AgentMemoryScope::User),
        "/remote/agent-memory/rev/"
    );
    assert!(is_agent_memory_path(
        &c,
        "/remote/projects/-work-app/agent-memory-local/rev/a.md"
    ));
    assert!(is_agent_memory_path(&c, "/remote/agent-memory/x/../y.md"));
    assert!(!is_agent_memory_path(
        &c,
        "/work/app/.claude/agent-memory-local/rev/a.md"
    ));
}

// ------------------------------------------------------------------ git roots (§2.6)

#[test]
fn git_root_walks_up_to_dir_or_file() {
    let fs = MemFs::new();
    fs.insert_file("/repo/.git/HEAD", "ref: refs/heads/main\n");
    fs.insert_file("/repo/a/b/c.txt", "");
    assert_eq!(
        block_on(find_git_root(&fs, "/repo/a/b")).as_deref(),
        Some("/repo")
    );
    assert_eq!(
        block_on(find_git_root(&fs, "/repo/a/b/../..")).as_deref(),
        Some("/repo")
    );
    assert_eq!(block_on(find_git_root(&fs, "/nowhere/x")), None);
    // The filesystem root is checked too.
    fs.insert_file("/.git", "gitdir: /elsewhere\n");
    assert_eq!(
        block_on(find_git_root(&fs, "/nowhere/x")).as_deref(),
        Some("/")
    );
}

fn worktree_fs() -> MemFs {
    let fs = MemFs::new();
    fs.insert_file("/repo/.git/HEAD", "ref: refs/heads/main\n");
    fs.insert_file("/repo/.git/worktrees/wt/commondir", "../..\n");
    fs.insert_file("/repo/.git/worktrees/wt/gitdir", "/wt/.git\n");
    fs.insert_file("/wt/.git", "gitdir: /repo/.git/worktrees/wt\n");
    fs.insert_file("/wt/src/main.rs", "");
    fs
}

#[test]
fn worktree_resolves_to_main_repo() {
    let fs = worktree_fs();
    assert_eq!(
        block_on(find_git_root(&fs, "/wt/src")).as_deref(),
        Some("/wt")
    );
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "/wt/src")).as_deref(),
        Some("/repo")
    );
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "/repo")).as_deref(),
        Some("/repo")
    );
}

#[test]
fn worktree_through_symlinked_checkout() {
    // The back-link names the real path; the project is opened through a symlink.
    let fs = worktree_fs();
    fs.symlink("/wt", "/links/wt");
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "/links/wt/src")).as_deref(),
        Some("/repo")
    );
}

#[test]
fn worktree_with_wrong_backlink_falls_back() {
    let fs = worktree_fs();
    fs.insert_file("/repo/.git/worktrees/wt/gitdir", "/other/.git\n");
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "/wt")).as_deref(),
        Some("/wt")
    );
}

#[test]
fn worktree_outside_worktrees_dir_falls_back() {
    let fs = MemFs::new();
    fs.insert_file("/repo/.git/HEAD", "");
    fs.insert_file("/repo/.git/sneaky/wt/commondir", "../..\n");
    fs.insert_file("/repo/.git/sneaky/wt/gitdir", "/wt/.git\n");
    fs.insert_file("/wt/.git", "gitdir: /repo/.git/sneaky/wt\n");
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "/wt")).as_deref(),
        Some("/wt")
    );
}

#[test]
fn submodule_falls_back_to_its_own_root() {
    let fs = MemFs::new();
    fs.insert_file("/super/.git/HEAD", "");
    fs.insert_file("/super/.git/modules/lib/HEAD", "");
    fs.insert_file("/super/lib/.git", "gitdir: ../.git/modules/lib\n");
    fs.insert_file("/super/lib/src/x.c", "");
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "/super/lib/src")).as_deref(),
        Some("/super/lib")
    );
}

#[test]
fn bare_repo_worktree_uses_common_dir() {
    let fs = MemFs::new();
    fs.insert_file("/bare.git/HEAD", "");
    fs.insert_file("/bare.git/worktrees/main/commondir", "../..\n");
    fs.insert_file("/bare.git/worktrees/main/gitdir", "/checkout/.git\n");
    fs.insert_file("/checkout/.git", "gitdir: /bare.git/worktrees/main\n");
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "/checkout")).as_deref(),
        Some("/bare.git")
    );
}

// ---------------------------------------------------------------------- ages (§7, §17)

#[test]
fn memory_age_vectors() {
    assert_eq!(memory_age(NOW - 1.0, NOW), "today");
    assert_eq!(memory_age(NOW - DAY, NOW), "yesterday");
    assert_eq!(memory_age(NOW - 2.0 * DAY, NOW), "2 days ago");
    assert_eq!(memory_age(NOW + 5.0 * DAY, NOW), "today");
    assert_eq!(memory_age_days(NOW - DAY + 1.0, NOW), 0);
    assert_eq!(memory_age_days(NOW - 400.0 * DAY, NOW), 400);
    assert_eq!(memory_age_days(f64::NAN, NOW), 0);
}

const CAVEAT_3: &str = "This memory is 3 days old. It records what was true when it was saved \u{2014} a snapshot, not the live state of the project, so what it says about how code behaves or where it lives (file:line) may no longer hold. Check it against the current code before you present it as fact.";

#[test]
fn freshness_text_and_note() {
    assert_eq!(memory_freshness_text(NOW - DAY, NOW), "");
    assert_eq!(memory_freshness_text(NOW - 3.0 * DAY, NOW), CAVEAT_3);
    assert!(!CAVEAT_3.contains("  ") && !CAVEAT_3.contains('\n'));
    assert_eq!(memory_freshness_note(NOW - 2.0 * DAY + 1.0, NOW), "");
    assert_eq!(
        memory_freshness_note(NOW - 3.0 * DAY, NOW),
        format!("<system-reminder>{CAVEAT_3}</system-reminder>\n")
    );
}

#[test]
fn memory_header_vectors() {
    assert_eq!(
        memory_header("/m/a.md", NOW - 3.0 * DAY, NOW),
        format!("{CAVEAT_3}\n\nMemory: /m/a.md:")
    );
    assert_eq!(
        memory_header("/m/a.md", NOW - DAY, NOW),
        "Memory (saved yesterday): /m/a.md:"
    );
    assert_eq!(
        memory_header("/m/a.md", NOW, NOW),
        "Memory (saved today): /m/a.md:"
    );
}

// ------------------------------------------------------------------ manifest (§5.3, §17)

fn header(description: Option<&str>, memory_type: Option<MemoryType>) -> MemoryHeader {
    MemoryHeader {
        filename: "user_role.md".into(),
        file_path: "/m/user_role.md".into(),
        mtime_ms: 1_700_000_000_123.9,
        description: description.map(str::to_owned),
        memory_type,
        name: None,
        body_head: String::new(),
    }
}

#[test]
fn manifest_vectors() {
    assert_eq!(
        iso_timestamp(1_700_000_000_123.9),
        "2023-11-14T22:13:20.123Z"
    );
    assert_eq!(
        format_manifest(&[header(Some("Senior Go dev"), Some(MemoryType::User))]),
        "- [user] user_role.md (2023-11-14T22:13:20.123Z): Senior Go dev"
    );
    assert_eq!(
        format_manifest(&[header(None, None)]),
        "- user_role.md (2023-11-14T22:13:20.123Z)"
    );
    assert_eq!(
        format_manifest(&[header(None, Some(MemoryType::Reference))]),
        "- [reference] user_role.md (2023-11-14T22:13:20.123Z)"
    );
    assert_eq!(
        format_manifest(&[header(Some("d"), None)]),
        "- user_role.md (2023-11-14T22:13:20.123Z): d"
    );
    // An empty description is falsy in the reference: no colon.
    assert_eq!(
        format_manifest(&[header(Some(""), None)]),
        "- user_role.md (2023-11-14T22:13:20.123Z)"
    );
}

#[test]
fn manifest_joins_without_trailing_newline_and_keeps_descriptions_verbatim() {
    let mut second = header(Some("line one\nline two"), Some(MemoryType::Project));
    second.filename = "team/api.md".into();
    second.mtime_ms = 0.0;
    assert_eq!(
        format_manifest(&[header(None, None), second]),
        "- user_role.md (2023-11-14T22:13:20.123Z)\n- [project] team/api.md (1970-01-01T00:00:00.000Z): line one\nline two"
    );
    assert_eq!(format_manifest(&[]), "");
}

// ---------------------------------------------------------------- index entries

fn entry(title: &str, file: &str, hook: &str) -> IndexEntry {
    IndexEntry {
        title: title.into(),
        file: file.into(),
        hook: hook.into(),
    }
}

#[test]
fn index_entry_parse_liberal() {
    let cases: &[(&str, Option<IndexEntry>)] = &[
        (
            "- [User role](user_role.md) — senior Go dev",
            Some(entry("User role", "user_role.md", "senior Go dev")),
        ),
        ("- [A](a.md)", Some(entry("A", "a.md", ""))),
        ("* [A](a.md) - hook", Some(entry("A", "a.md", "hook"))),
        (
            "-   [A](a.md)   –   hook  ",
            Some(entry("A", "a.md", "hook")),
        ),
        ("  - [A](a.md) — hook\r", Some(entry("A", "a.md", "hook"))),
        ("- [A](a.md)—tight", Some(entry("A", "a.md", "tight"))),
        ("- [A](a.md): colon", Some(entry("A", "a.md", "colon"))),
        (
            "- [A](a.md) loose text",
            Some(entry("A", "a.md", "loose text")),
        ),
        (
            "- [Fix [wip] notes](fix.md) — x",
            Some(entry("Fix [wip] notes", "fix.md", "x")),
        ),
        ("- [a\\](b](c.md) — x", Some(entry("a](b", "c.md", "x"))),
        (
            "- [A](notes(1).md) — x",
            Some(entry("A", "notes(1).md", "x")),
        ),
        (
            "- [A](<my notes.md>) — x",
            Some(entry("A", "my notes.md", "x")),
        ),
        (
            "- [A](a.md) — see [B](b.md) too",
            Some(entry("A", "a.md", "see [B](b.md) too")),
        ),
        ("- [A]() — x", None),
        ("[A](a.md)", None),
        ("# Memory index", None),
        ("", None),
        ("- plain bullet", None),
        ("- [A] (a.md)", None),
    ];
    for (line, want) in cases {
        assert_eq!(
            &parse_index_entry(line),
            want,
            "parse_index_entry({line:?})"
        );
    }
}

#[test]
fn index_entry_format_strict() {
    assert_eq!(
        format_index_entry(&entry("Role", "role.md", "Go dev")),
        "- [Role](role.md) \u{2014} Go dev"
    );
    assert_eq!(
        format_index_entry(&entry("Role", "role.md", "")),
        "- [Role](role.md)"
    );
    assert_eq!(
        format_index_entry(&entry("Role", "role.md", "  \n ")),
        "- [Role](role.md)"
    );
    assert_eq!(
        format_index_entry(&entry("Two\nlines", "a.md", "hook\r\nmore")),
        "- [Two lines](a.md) — hook more"
    );
    assert_eq!(
        format_index_entry(&entry("a]b", "a b.md", "x")),
        "- [a\\]b](<a b.md>) — x"
    );
}

#[test]
fn index_entry_round_trips() {
    let entries = [
        entry("User role", "user_role.md", "senior Go dev"),
        entry("No hook", "n.md", ""),
        entry("Brackets [x] and ]", "b.md", "— dashes – inside"),
        entry("C:\\path\\", "w.md", "h"),
        entry("Spaces", "my file (2).md", "h"),
        entry("Ünïcødé 😀", "team/u.md", "ok"),
    ];
    for e in entries {
        let line = format_index_entry(&e);
        assert_eq!(parse_index_entry(&line), Some(e.clone()), "{line}");
    }
}

#[test]
fn index_entries_lists_lines() {
    let index = "# Memory\n\n- [A](a.md) — x\r\nnot an entry\n* [B](b.md)";
    let got = index_entries(index);
    assert_eq!(
        got,
        vec![(2, entry("A", "a.md", "x")), (4, entry("B", "b.md", ""))]
    );
}

#[test]
fn upsert_replaces_in_place_keeping_other_bytes() {
    let index = "# Memory\r\n\r\n- [A](a.md) — old\r\n  * [B](b.md)  -  keep  \r\ntrailer";
    let out = upsert_index_entry(index, &entry("A2", "a.md", "new"));
    assert_eq!(
        out,
        "# Memory\r\n\r\n- [A2](a.md) — new\r\n  * [B](b.md)  -  keep  \r\ntrailer"
    );
    let last = upsert_index_entry(index, &entry("T", "trailer.md", "t"));
    assert_eq!(last, format!("{index}\r\n- [T](trailer.md) — t\r\n"));
}

#[test]
fn upsert_appends_with_newline_separation() {
    let e = entry("C", "c.md", "h");
    assert_eq!(upsert_index_entry("", &e), "- [C](c.md) — h\n");
    assert_eq!(
        upsert_index_entry("- [A](a.md)\n", &e),
        "- [A](a.md)\n- [C](c.md) — h\n"
    );
    assert_eq!(
        upsert_index_entry("- [A](a.md)", &e),
        "- [A](a.md)\n- [C](c.md) — h\n"
    );
}

#[test]
fn upsert_matches_equivalent_targets_and_drops_duplicates() {
    let index = "- [A](./a.md) — one\n- [B](b.md)\n- [A again](a.md) — two\n";
    assert_eq!(
        upsert_index_entry(index, &entry("A", "a.md", "three")),
        "- [A](a.md) — three\n- [B](b.md)\n"
    );
}

#[test]
fn remove_drops_every_line_for_the_file() {
    let index = "# M\n- [A](a.md) — x\n- [B](b.md)\n* [A dup](./a.md)\nfooter";
    assert_eq!(
        remove_index_entry(index, "a.md"),
        "# M\n- [B](b.md)\nfooter"
    );
    assert_eq!(remove_index_entry(index, "zzz.md"), index);
    assert_eq!(remove_index_entry("- [A](a.md)", "a.md"), "");
    assert_eq!(
        remove_index_entry("x\r\n- [A](a.md)\r\ny", "a.md"),
        "x\r\ny"
    );
}

// ---------------------------------------------------------------- settings files (issue #18)

fn settings_ctx() -> PathContext {
    PathContext {
        home: "/home/u".into(),
        project_root: "/work/app".into(),
        ..PathContext::default()
    }
}

#[test]
fn settings_files_are_policy_user_project_local() {
    use memdir::paths::{settings_files, SettingsSource};
    let files = settings_files(&settings_ctx());
    let want = [
        (
            SettingsSource::Policy,
            "/etc/claude-code/managed-settings.json",
        ),
        (SettingsSource::User, "/home/u/.claude/settings.json"),
        (SettingsSource::Project, "/work/app/.claude/settings.json"),
        (
            SettingsSource::Local,
            "/work/app/.claude/settings.local.json",
        ),
    ];
    assert_eq!(
        files,
        want.map(|(s, p)| (s, p.to_owned())).to_vec(),
        "{files:?}"
    );
    // CLAUDE_CONFIG_DIR moves the user file; macOS and Windows keep policy elsewhere.
    let mut ctx = settings_ctx();
    ctx.env = env(&[("CLAUDE_CONFIG_DIR", "/cfg")]);
    ctx.platform = "darwin".into();
    let files = settings_files(&ctx);
    assert_eq!(files[1].1, "/cfg/settings.json");
    assert_eq!(
        files[0].1,
        "/Library/Application Support/ClaudeCode/managed-settings.json"
    );
    let win = PathContext {
        home: "C:\\Users\\u".into(),
        project_root: "C:\\work\\app".into(),
        platform: "win32".into(),
        ..PathContext::default()
    };
    let files = settings_files(&win);
    assert_eq!(
        files[0].1,
        "C:\\ProgramData\\ClaudeCode\\managed-settings.json"
    );
    assert_eq!(files[1].1, "C:\\Users\\u\\.claude\\settings.json");
    assert_eq!(files[3].1, "C:\\work\\app\\.claude\\settings.local.json");
}

#[test]
fn loaded_settings_choose_the_directory_only_from_trusted_sources() {
    use memdir::paths::load_settings;
    let fs = MemFs::new();
    let user = "/home/u/.claude/settings.json";
    let project = "/work/app/.claude/settings.json";
    let local = "/work/app/.claude/settings.local.json";
    // Only the committed project file names a directory: it is ignored for that.
    fs.insert_file(
        project,
        r#"{"autoMemoryDirectory": "/tmp/evil", "model": "x"}"#,
    );
    let mut ctx = settings_ctx();
    ctx.settings = block_on(load_settings(&fs, &ctx)).settings;
    assert_eq!(
        resolve_memory_dir(&ctx).unwrap(),
        "/home/u/.claude/projects/-work-app/memory/"
    );
    // The user file chooses it (with ~ expanded), and a BOM is fine.
    fs.insert_file(user, "\u{feff}{\"autoMemoryDirectory\": \"~/notes\"}");
    ctx.settings = block_on(load_settings(&fs, &ctx)).settings;
    assert_eq!(resolve_memory_dir(&ctx).unwrap(), "/home/u/notes/");
    // The local file outranks the user file.
    fs.insert_file(local, r#"{"autoMemoryDirectory": "/srv/mem"}"#);
    let loaded = block_on(load_settings(&fs, &ctx));
    ctx.settings = loaded.settings.clone();
    assert_eq!(resolve_memory_dir(&ctx).unwrap(), "/srv/mem/");
    let read: Vec<bool> = loaded.files.iter().map(|f| f.loaded).collect();
    assert_eq!(read, [false, true, true, true]);
    assert!(loaded.files.iter().all(|f| f.error.is_none()));
    // The project file may still turn memory off.
    fs.insert_file(project, r#"{"autoMemoryEnabled": false}"#);
    let settings = block_on(load_settings(&fs, &ctx)).settings;
    assert!(!is_auto_memory_enabled(&EnvMap::new(), &settings));
}

#[test]
fn broken_settings_files_are_reported_and_contribute_nothing() {
    use memdir::paths::{load_settings, parse_settings_layer};
    let fs = MemFs::new();
    fs.insert_file("/home/u/.claude/settings.json", "{ not json");
    fs.insert_file("/work/app/.claude/settings.local.json", "[\"a list\"]");
    // A directory where a file is expected: unreadable, reported.
    fs.insert_file("/work/app/.claude/settings.json/x", "");
    let loaded = block_on(load_settings(&fs, &settings_ctx()));
    assert_eq!(loaded.settings, Settings::default());
    let errors: Vec<bool> = loaded.files.iter().map(|f| f.error.is_some()).collect();
    assert_eq!(errors, [false, true, true, true], "{:?}", loaded.files);
    assert!(loaded.files.iter().all(|f| !f.loaded));
    // Keys of the wrong type are left out; the rest of the file still counts.
    let layer =
        parse_settings_layer(r#"{"autoMemoryDirectory": 5, "autoMemoryEnabled": false}"#).unwrap();
    assert_eq!(layer.auto_memory_directory, None);
    assert_eq!(layer.auto_memory_enabled, Some(false));
    // Too big to be a settings file.
    let big = format!(
        "{{\"x\": \"{}\"}}",
        "a".repeat(memdir::paths::MAX_SETTINGS_BYTES)
    );
    fs.insert_file("/home/u/.claude/settings.json", big);
    let loaded = block_on(load_settings(&fs, &settings_ctx()));
    assert!(loaded.files[1].error.as_deref().unwrap().contains("larger"));
}
