//! Windows paths (issue #18): validation, resolution, git roots, settings files, and a memory
//! directory on a filesystem that behaves like Windows ([`common::win_fs::WinFs`]: `\` and `/`
//! separators, drive and UNC roots, names compared without case).

mod common;

use common::win_fs::WinFs;
use common::{block_on, TestClock};
use memdir::host::{FileSystem, NoLlm, NoTelemetry};
use memdir::paths::{
    find_canonical_git_root, load_settings, resolve_memory_dir, validate_memory_path_in,
    PathContext, PathStyle,
};
use memdir::recall::FindOptions;
use memdir::store::{LocalDate, MemoryChanges, SaveInput, SaveOutcome, Scope};
use memdir::{Code, Memdir, MemdirConfig};

const W: PathStyle = PathStyle::Win32;

fn win_ctx(home: &str, project: &str) -> PathContext {
    PathContext {
        home: home.into(),
        project_root: project.into(),
        platform: "win32".into(),
        ..PathContext::default()
    }
}

#[test]
fn validate_memory_path_follows_the_reference_on_windows() {
    let ok = |raw: &str, tilde: bool| validate_memory_path_in(W, raw, tilde, "C:\\Users\\u");
    assert_eq!(
        ok("C:\\Users\\u\\mem", false).as_deref(),
        Some("C:\\Users\\u\\mem\\")
    );
    assert_eq!(
        ok("C:/Users/u/mem//", false).as_deref(),
        Some("C:\\Users\\u\\mem\\")
    );
    assert_eq!(
        ok("D:\\a\\..\\mem\\.\\x", false).as_deref(),
        Some("D:\\mem\\x\\")
    );
    assert_eq!(
        ok("~\\notes", true).as_deref(),
        Some("C:\\Users\\u\\notes\\")
    );
    assert_eq!(
        ok("~/notes", true).as_deref(),
        Some("C:\\Users\\u\\notes\\")
    );
    // A rooted path without a drive is absolute on Windows.
    assert_eq!(ok("\\mem", false).as_deref(), Some("\\mem\\"));
    for bad in [
        "",
        "C:",
        "C:\\",
        "C:/",
        "C:mem",
        "mem\\x",
        "\\\\server\\share\\mem",
        "//server/share/mem",
        "~\\notes",
        "C:\\m\0x",
    ] {
        assert_eq!(ok(bad, false), None, "{bad:?}");
    }
    for bad in ["~\\", "~\\.", "~\\..", "~/x/.."] {
        assert_eq!(ok(bad, true), None, "{bad:?}");
    }
    // The POSIX rules still refuse a drive path.
    assert_eq!(
        validate_memory_path_in(PathStyle::Posix, "C:\\Users\\u\\mem", false, ""),
        None
    );
}

#[test]
fn resolve_memory_dir_gives_backslash_paths_on_windows() {
    let ctx = win_ctx("C:\\Users\\u", "C:\\Users\\u\\app");
    assert_eq!(
        resolve_memory_dir(&ctx).unwrap(),
        "C:\\Users\\u\\.claude\\projects\\C--Users-u-app\\memory\\"
    );
    // The git root names the project; a forward-slash home is normalised.
    let mut ctx = win_ctx("C:/Users/u/", "C:\\Users\\u\\app\\src");
    ctx.git_root = Some("C:\\Users\\u\\app".into());
    assert_eq!(
        resolve_memory_dir(&ctx).unwrap(),
        "C:\\Users\\u\\.claude\\projects\\C--Users-u-app\\memory\\"
    );
    // A home on a network share.
    let ctx = win_ctx("\\\\srv\\home\\u", "\\\\srv\\home\\u\\app");
    assert_eq!(
        resolve_memory_dir(&ctx).unwrap(),
        "\\\\srv\\home\\u\\.claude\\projects\\--srv-home-u-app\\memory\\"
    );
    // CLAUDE_CONFIG_DIR and the env override, with Windows validation.
    let mut ctx = win_ctx("C:\\Users\\u", "C:\\app");
    ctx.env.insert("CLAUDE_CONFIG_DIR".into(), "D:\\cfg".into());
    assert_eq!(
        resolve_memory_dir(&ctx).unwrap(),
        "D:\\cfg\\projects\\C--app\\memory\\"
    );
    ctx.env.insert(
        "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".into(),
        "E:/shared/mem".into(),
    );
    assert_eq!(resolve_memory_dir(&ctx).unwrap(), "E:\\shared\\mem\\");
    // The settings directory expands `~\`.
    let mut ctx = win_ctx("C:\\Users\\u", "C:\\app");
    ctx.settings.user.auto_memory_directory = Some("~\\mem".into());
    assert_eq!(resolve_memory_dir(&ctx).unwrap(), "C:\\Users\\u\\mem\\");
    // Without a platform, a drive home means Windows; a POSIX home stays POSIX.
    let guessed = PathContext {
        platform: String::new(),
        ..win_ctx("C:\\Users\\u", "C:\\app")
    };
    assert_eq!(
        resolve_memory_dir(&guessed).unwrap(),
        "C:\\Users\\u\\.claude\\projects\\C--app\\memory\\"
    );
    let posix = PathContext {
        home: "/home/u".into(),
        project_root: "/work/app".into(),
        ..PathContext::default()
    };
    assert_eq!(
        resolve_memory_dir(&posix).unwrap(),
        "/home/u/.claude/projects/-work-app/memory/"
    );
}

#[test]
fn git_roots_and_settings_files_on_a_windows_filesystem() {
    let fs = WinFs::new();
    fs.insert_file("C:\\Repo\\.git\\HEAD", "ref: refs/heads/main\n");
    fs.insert_file("C:\\Repo\\src\\lib.rs", "");
    // Any case and either separator reach the same directories.
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "c:/repo/src")).as_deref(),
        Some("c:\\repo")
    );
    // A linked worktree (git on Windows writes `/` in these files) maps to the main root.
    fs.insert_file("C:\\Repo\\.git\\worktrees\\wt\\commondir", "../..\n");
    fs.insert_file("C:\\Repo\\.git\\worktrees\\wt\\gitdir", "C:/wt/.git\n");
    fs.insert_file("C:\\wt\\.git", "gitdir: C:/Repo/.git/worktrees/wt\n");
    assert_eq!(
        block_on(find_canonical_git_root(&fs, "C:\\wt")).as_deref(),
        Some("C:\\Repo")
    );

    fs.insert_file(
        "C:\\Users\\u\\.claude\\settings.json",
        r#"{"autoMemoryDirectory": "~\\memory-notes"}"#,
    );
    fs.insert_file(
        "C:\\Repo\\.claude\\settings.json",
        r#"{"autoMemoryDirectory": "D:\\evil"}"#,
    );
    let mut ctx = win_ctx("C:\\Users\\u", "C:\\Repo");
    let loaded = block_on(load_settings(&fs, &ctx));
    let loaded_files: Vec<&str> = loaded
        .files
        .iter()
        .filter(|f| f.loaded)
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(
        loaded_files,
        [
            "C:\\Users\\u\\.claude\\settings.json",
            "C:\\Repo\\.claude\\settings.json"
        ]
    );
    ctx.settings = loaded.settings;
    assert_eq!(
        resolve_memory_dir(&ctx).unwrap(),
        "C:\\Users\\u\\memory-notes\\"
    );
}

fn win_memdir(fs: WinFs, dir: &str) -> Memdir<WinFs, TestClock> {
    Memdir::<_, _>::new(
        fs,
        TestClock::new(1_700_000_000_000.0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::try_new(dir).unwrap(),
    )
}

fn input(name: &str, description: &str, body: &str) -> SaveInput {
    SaveInput {
        name: name.into(),
        description: description.into(),
        memory_type: "user".into(),
        body: body.into(),
        ..SaveInput::default()
    }
}

#[test]
fn a_memory_directory_on_a_windows_filesystem_works_end_to_end() {
    for dir in [
        "C:\\Users\\u\\.claude\\projects\\C--app\\memory\\",
        "c:/users/U/.claude/projects/C--app/memory",
        "\\\\srv\\share\\mem\\",
    ] {
        let fs = WinFs::new();
        // The directory exists, created in its own case.
        let canonical = if dir.starts_with("\\\\") {
            "\\\\srv\\share\\mem\\"
        } else {
            "C:\\Users\\u\\.claude\\projects\\C--app\\memory\\"
        };
        fs.insert_file(&format!("{canonical}.keep"), "");
        let m = win_memdir(fs, dir);
        let SaveOutcome::Saved(saved) =
            block_on(m.save(input("Role", "Senior Go dev", "Ten years of Go."))).unwrap()
        else {
            panic!("saved")
        };
        assert_eq!(saved.file, "user_role.md");
        let mut team = input("Freeze", "Release freeze", "No deploys on Friday.");
        team.scope = Scope::Team;
        block_on(m.save(team)).unwrap();
        let log = block_on(m.append_log(
            "- 14:02 switched to pnpm\n",
            LocalDate {
                year: 2026,
                month: 3,
                day: 5,
            },
        ))
        .unwrap();
        assert!(log.ends_with("logs/2026/03/2026-03-05.md"), "{log}");
        let files: Vec<String> = m.fs().files().into_iter().map(|(p, _)| p).collect();
        for want in [
            format!("{canonical}MEMORY.md"),
            format!("{canonical}user_role.md"),
            format!("{canonical}team\\MEMORY.md"),
            format!("{canonical}team\\user_freeze.md"),
            format!("{canonical}logs\\2026\\03\\2026-03-05.md"),
        ] {
            assert!(files.contains(&want), "{dir}: {want} in {files:?}");
        }
        assert_eq!(
            m.fs().text(&format!("{canonical}MEMORY.md")).unwrap(),
            "- [Role](user_role.md) — Senior Go dev\n"
        );
        // Scan, list, the index, recall, update and delete see the same memories.
        let mut names: Vec<String> = block_on(m.scan())
            .unwrap()
            .into_iter()
            .map(|h| h.filename)
            .collect();
        names.sort();
        assert_eq!(names, ["team/user_freeze.md", "user_role.md"], "{dir}");
        assert!(block_on(m.list()).unwrap().iter().all(|l| l.exists));
        assert!(block_on(m.read_index())
            .unwrap()
            .content
            .contains("user_role.md"));
        let recall = block_on(m.find_relevant(
            "which language is the user senior in, Go?",
            FindOptions::default(),
        ))
        .unwrap();
        assert!(
            recall
                .memories
                .iter()
                .any(|r| r.path.ends_with("user_role.md")),
            "{dir}: {recall:?}"
        );
        let surfaced = block_on(
            m.surface(
                &recall
                    .memories
                    .iter()
                    .map(|r| (r.path.clone(), r.mtime_ms))
                    .collect::<Vec<_>>(),
            ),
        );
        assert!(!surfaced.is_empty(), "{dir}: surfaced nothing");
        block_on(m.update(
            "user_role.md",
            MemoryChanges {
                description: Some("Senior Go dev, learning React".into()),
                ..MemoryChanges::default()
            },
        ))
        .unwrap();
        assert!(m
            .fs()
            .text(&format!("{canonical}MEMORY.md"))
            .unwrap()
            .contains("learning React"));
        // The same name again is ALREADY_EXISTS even spelled in another case on this disk.
        let err = block_on(m.save(SaveInput {
            file: Some("USER_ROLE.md".into()),
            ..input("Role", "d", "b")
        }))
        .unwrap_err();
        assert_eq!(err.code, Code::AlreadyExists);
        block_on(m.delete("user_role.md")).unwrap();
        assert!(m.fs().text(&format!("{canonical}user_role.md")).is_none());
    }
}

#[test]
fn containment_on_windows_compares_without_case_and_refuses_links_out() {
    let fs = WinFs::new();
    fs.insert_file(
        "C:\\Users\\u\\mem\\inside.md",
        "---\ndescription: in\n---\nx",
    );
    fs.insert_file(
        "C:\\Users\\u\\.aws\\credentials.md",
        "---\ndescription: secret\n---\nkey",
    );
    fs.insert_file(
        "C:\\Users\\u\\mem-evil\\x.md",
        "---\ndescription: evil\n---\n",
    );
    fs.symlink(
        "C:\\Users\\u\\.aws\\credentials.md",
        "C:\\Users\\u\\mem\\creds.md",
    );
    fs.symlink(
        "C:\\Users\\u\\mem\\inside.md",
        "C:\\Users\\u\\mem\\alias.md",
    );
    fs.symlink("C:\\Users\\u\\.aws", "C:\\Users\\u\\mem\\notes");
    // The directory spelled in another case: still the same directory.
    let m = win_memdir(fs, "c:\\USERS\\u\\MEM\\");
    let mut names: Vec<String> = block_on(m.scan())
        .unwrap()
        .into_iter()
        .map(|h| h.filename)
        .collect();
    names.sort();
    assert_eq!(names, ["alias.md", "inside.md"], "the link out is not read");
    let store = m.store();
    assert!(
        block_on(store.contained_real_path("C:\\Users\\u\\mem\\alias.md"))
            .unwrap()
            .is_some()
    );
    assert_eq!(
        block_on(store.contained_real_path("c:/users/u/mem/creds.md"))
            .unwrap_err()
            .code,
        Code::PathSymlinkEscape
    );
    // Lexically outside (a sibling whose name starts the same, a `..`): never read.
    assert_eq!(
        block_on(store.contained_real_path("C:\\Users\\u\\mem-evil\\x.md"))
            .unwrap_err()
            .code,
        Code::PathSymlinkEscape
    );
    // Writes through a link out are refused: `notes` is a link to .aws.
    let err = block_on(m.save(SaveInput {
        file: Some("NOTES/x.md".into()),
        ..input("X", "d", "b")
    }))
    .unwrap_err();
    assert_eq!(err.code, Code::PathSymlinkEscape, "{err:?}");
    assert!(block_on(m.fs().stat("C:\\Users\\u\\.aws\\x.md")).is_err());
}

#[test]
fn path_style_containment_and_parents() {
    assert!(W.contains("C:\\Users\\u\\mem\\", "c:/users/U/MEM/team/a.md"));
    assert!(W.contains("C:\\Users\\u\\mem", "C:\\Users\\u\\mem"));
    assert!(!W.contains("C:\\Users\\u\\mem", "C:\\Users\\u\\mem-evil"));
    assert!(!W.contains("C:\\Users\\u\\mem", "D:\\Users\\u\\mem\\a.md"));
    assert!(W.contains("\\\\srv\\share\\m", "//SRV/share/m/a.md"));
    assert!(!PathStyle::Posix.contains("/m", "/M/a.md"));
    assert!(!PathStyle::Posix.contains("/m", "/m\\a.md") || cfg!(windows));
    assert_eq!(W.parent("C:\\m\\team/a.md"), "C:\\m\\team");
    assert_eq!(W.parent("\\\\s\\h\\a.md"), "\\\\s\\h\\");
    assert_eq!(W.trim_trailing_sep("\\\\s\\h\\"), "\\\\s\\h\\");
    assert_eq!(PathStyle::of_dir("\\\\s\\h\\m\\"), W);
}

#[test]
fn the_memory_tool_works_in_subfolders_of_a_windows_directory() {
    use memdir::memory_tool::{handle_memory_command, MemoryToolCommand as Cmd};
    let fs = WinFs::new();
    fs.insert_file("C:\\Users\\u\\mem\\sub\\a.md", "line one\n");
    fs.insert_file("C:\\Users\\u\\.aws\\credentials.md", "key");
    fs.symlink("C:\\Users\\u\\.aws", "C:\\Users\\u\\mem\\out");
    // The directory spelled in another case than the disk's, as a host may pass it.
    let m = win_memdir(fs, "c:\\users\\U\\MEM\\");
    let run = |cmd: Cmd| block_on(handle_memory_command(&m, cmd));
    let view = |path: &str| Cmd::View {
        path: path.into(),
        view_range: None,
    };
    let shown = run(view("/memories/sub/a.md")).unwrap();
    assert!(shown.contains("line one"), "{shown}");
    run(Cmd::Create {
        path: "/memories/sub/deeper/b.md".into(),
        file_text: "two".into(),
    })
    .unwrap();
    assert!(m
        .fs()
        .text("C:\\Users\\u\\mem\\sub\\deeper\\b.md")
        .is_some_and(|t| t.ends_with("two")));
    assert!(run(view("/memories/sub/deeper/b.md"))
        .unwrap()
        .contains("two"));
    let listing = run(view("/memories")).unwrap();
    assert!(listing.contains("/memories/sub/a.md"), "{listing}");
    assert!(!listing.contains("credentials"), "{listing}");
    run(Cmd::Delete {
        path: "/memories/sub/a.md".into(),
    })
    .unwrap();
    assert!(m.fs().text("C:\\Users\\u\\mem\\sub\\a.md").is_none());
    // A link out of the directory is still refused, for reads and writes.
    for cmd in [
        view("/memories/out/credentials.md"),
        Cmd::Create {
            path: "/memories/out/new/x.md".into(),
            file_text: "pwned".into(),
        },
    ] {
        assert_eq!(run(cmd).unwrap_err().code, Code::PathSymlinkEscape);
    }
    assert!(m.fs().text("C:\\Users\\u\\.aws\\new\\x.md").is_none());
}

#[test]
fn names_windows_reads_as_streams_devices_or_aliases_are_refused() {
    let fs = WinFs::new();
    let dir = "C:\\Users\\u\\.claude\\projects\\C--app\\memory\\";
    fs.insert_file(&format!("{dir}.keep"), "");
    let m = win_memdir(fs, dir);
    for file in [
        "notes:x.md",
        "sub/C:x.md",
        "x.md:stream",
        "con.md",
        "NUL.md",
        "sub/Aux.md",
        "prn.notes.md",
        "com1.md",
        "LPT9.md",
        "con/x.md",
        "team./x.md",
        "team /x.md",
        "notes.md.",
        "notes.md ",
    ] {
        let mut save = input("Role", "Senior Go dev", "Ten years of Go.");
        save.file = Some(file.into());
        let err = block_on(m.save(save)).unwrap_err();
        assert_eq!(err.code, Code::InvalidMemory, "{file}: {err:?}");
    }
    // Nothing was written but the marker file.
    let files: Vec<String> = m.fs().files().into_iter().map(|(p, _)| p).collect();
    assert_eq!(files, vec![format!("{dir}.keep")]);
    // Near misses stay valid names.
    for file in [
        "console.md",
        "com10.md",
        "sub/lpt.md",
        "a.b.md",
        "nul_notes.md",
    ] {
        let mut save = input(file, "Senior Go dev", "Ten years of Go.");
        save.file = Some(file.into());
        block_on(m.save(save)).unwrap_or_else(|e| panic!("{file}: {e:?}"));
    }
}
