//! The memory-tool backend (`memory_20250818`), and the write-mode matrix over every write path.

mod common;

use common::std_fs::{StdFs, TempDir};
use common::{block_on, TestClock};
use memdir::consolidate::{Changeset, ConsolidateOptions, ConsolidateOutcome, FileCreate};
use memdir::extract::{ConversationMessage, ExtractOptions};
use memdir::host::{HostResult, LlmRequest};
use memdir::memory_tool::{handle_memory_command, MemoryToolCommand as Cmd, MemoryToolOutcome};
use memdir::store::{MemoryChanges, Proposal, SaveInput, SaveOutcome};
use memdir::{Code, Llm, MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry, WriteMode};

const T0: f64 = 1_700_000_000_000.0;

const NOTE: &str = "---\nname: Note\ndescription: a note\ntype: user\n---\n\nline one\nline two\n";

fn memdir(mode: WriteMode) -> Memdir<MemFs, TestClock, NoLlm> {
    let fs = MemFs::new();
    fs.insert_file("/m/note.md", NOTE);
    fs.insert_file("/m/MEMORY.md", "- [Note](note.md) — a note\n");
    fs.insert_file("/m/sub/deep/x.md", "x");
    fs.insert_file("/m/.memdir-undo.json", "{}");
    fs.insert_file("/outside/secret.md", "top secret");
    let mut c = MemdirConfig::new("/m/");
    c.write_mode = mode;
    Memdir::new(fs, TestClock::new(T0), None, NoTelemetry, c)
}

/// [`memdir`] with the private-memory secret guard turned off (`guardPrivateSecrets: false`),
/// where a test needs a secret in private memory to reach the team guard.
fn memdir_unguarded(mode: WriteMode) -> Memdir<MemFs, TestClock, NoLlm> {
    let fs = MemFs::new();
    let mut c = MemdirConfig::new("/m/");
    c.write_mode = mode;
    c.store.guard_private_secrets = false;
    Memdir::new(fs, TestClock::new(T0), None, NoTelemetry, c)
}

fn run(m: &Memdir<MemFs, TestClock, NoLlm>, cmd: Cmd) -> memdir::Result<String> {
    block_on(handle_memory_command(m, cmd))
}

fn content(m: &Memdir<MemFs, TestClock, NoLlm>, path: &str) -> Option<String> {
    m.fs()
        .snapshot()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, d)| String::from_utf8(d).unwrap())
}

fn view(path: &str) -> Cmd {
    Cmd::View {
        path: path.into(),
        view_range: None,
    }
}

fn index(m: &Memdir<MemFs, TestClock, NoLlm>) -> String {
    content(m, "/m/MEMORY.md").unwrap_or_default()
}

fn err_text(m: &Memdir<MemFs, TestClock, NoLlm>, cmd: Cmd) -> (Code, String) {
    let e = run(m, cmd).unwrap_err();
    (e.code, e.message.clone())
}

#[test]
fn view_lists_directories_and_numbers_lines() {
    let m = memdir(WriteMode::Auto);
    m.fs()
        .insert_file("/m/sub/deep/deeper/hidden-by-depth.md", "z");
    m.fs().insert_file("/m/node_modules/x.js", "z");
    m.fs().insert_file("/m/.hidden.md", "z");
    m.fs().insert_file("/m/big.md", "x".repeat(1536));
    let listing = run(&m, view("/memories")).unwrap();
    // The reference backend's format: header, the directory itself, then two levels in sorted
    // pre-order; hidden entries and node_modules left out; sizes as `55B`, `1.5K`.
    assert_eq!(
        listing,
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n\
         0B\t/memories\n\
         29B\t/memories/MEMORY.md\n\
         1.5K\t/memories/big.md\n\
         69B\t/memories/note.md\n\
         0B\t/memories/sub/\n\
         0B\t/memories/sub/deep/"
    );
    let sub = run(&m, view("/memories/sub")).unwrap();
    assert!(sub.ends_with("0B\t/memories/sub\n0B\t/memories/sub/deep/\n0B\t/memories/sub/deep/deeper/\n1B\t/memories/sub/deep/x.md"), "{sub}");
    let ranged = |range| Cmd::View {
        path: "/memories/note.md".into(),
        view_range: Some(range),
    };
    // A final newline shows as an empty last line.
    assert_eq!(
        run(&m, ranged([7, -1])).unwrap(),
        "Here's the content of /memories/note.md with line numbers:\n     7\tline one\n     8\tline two\n     9\t"
    );
    assert!(run(&m, view("/memories/note.md"))
        .unwrap()
        .starts_with("Here's the content of /memories/note.md with line numbers:\n     1\t---\n     2\tname: Note\n"));
    // Ranges are cut, never refused, as the reference backend does.
    assert_eq!(
        run(&m, ranged([20, 30])).unwrap(),
        "Here's the content of /memories/note.md with line numbers:\n"
    );
    assert_eq!(
        run(&m, ranged([0, 1])).unwrap(),
        "Here's the content of /memories/note.md with line numbers:\n     1\t---"
    );
    assert_eq!(
        err_text(&m, view("/memories/none.md")),
        (
            Code::NotFound,
            "The path /memories/none.md does not exist. Please provide a valid path.".into()
        )
    );
    assert_eq!(
        err_text(&m, view("/elsewhere")),
        (
            Code::PathEscapes,
            "Path must start with /memories, got: /elsewhere".into()
        )
    );
}

#[test]
fn the_root_exists_from_the_first_command() {
    let m = Memdir::new(
        MemFs::new(),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new("/fresh/mem/"),
    );
    assert_eq!(
        run(&m, view("/memories")).unwrap(),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories"
    );
    use memdir::FileSystem;
    assert!(block_on(m.fs().stat("/fresh/mem")).is_ok());
    // Read-only: nothing is created, the missing root lists as empty.
    let mut c = MemdirConfig::new("/ro/");
    c.write_mode = WriteMode::ReadOnly;
    let ro = Memdir::new(
        MemFs::new(),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        c,
    );
    assert!(run(&ro, view("/memories"))
        .unwrap()
        .ends_with("\n0B\t/memories"));
}

#[test]
fn create_replace_insert_rename_delete() {
    let m = memdir(WriteMode::Auto);
    let created =
        "---\nname: Alpha\ndescription: the alpha notes\ntype: user\n---\n\nalpha\nbeta\n";
    assert_eq!(
        run(
            &m,
            Cmd::Create {
                path: "/memories/new/a.md".into(),
                file_text: created.into()
            }
        )
        .unwrap(),
        "File created successfully at: /memories/new/a.md"
    );
    assert_eq!(content(&m, "/m/new/a.md").unwrap(), created);
    // The index entry follows the file.
    assert!(
        index(&m).contains("- [Alpha](new/a.md) — the alpha notes"),
        "{}",
        index(&m)
    );
    assert_eq!(
        err_text(
            &m,
            Cmd::Create {
                path: "/memories/new/a.md".into(),
                file_text: "again".into()
            }
        ),
        (
            Code::AlreadyExists,
            "File /memories/new/a.md already exists".into()
        )
    );
    let replace = |old: &str, new: &str| Cmd::StrReplace {
        path: "/memories/new/a.md".into(),
        old_str: old.into(),
        new_str: new.into(),
    };
    assert_eq!(
        run(&m, replace("beta", "gamma")).unwrap(),
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     6\t\n     7\talpha\n     8\tgamma\n     9\t"
    );
    assert!(content(&m, "/m/new/a.md")
        .unwrap()
        .ends_with("\n\nalpha\ngamma\n"));
    assert_eq!(
        err_text(&m, replace("a", "b")),
        (
            Code::InvalidInput,
            "No replacement was performed. Multiple occurrences of old_str `a` in lines: 2, 3, 7, 8. Please ensure it is unique".into()
        )
    );
    assert_eq!(
        err_text(&m, replace("zeta", "b")),
        (
            Code::InvalidInput,
            "No replacement was performed, old_str `zeta` did not appear verbatim in /memories/new/a.md.".into()
        )
    );
    // A multi-line old_str is matched across lines (the reference backend never finds one).
    run(&m, replace("alpha\ngamma", "alpha\ndelta")).unwrap();
    // Renaming the memory through its frontmatter moves the index entry's title.
    run(&m, replace("name: Alpha", "name: Alpha notes")).unwrap();
    assert!(index(&m).contains("- [Alpha notes](new/a.md) — the alpha notes"));
    assert_eq!(
        run(
            &m,
            Cmd::Insert {
                path: "/memories/new/a.md".into(),
                insert_line: 7,
                insert_text: "between\n".into(),
            },
        )
        .unwrap(),
        "The file /memories/new/a.md has been edited."
    );
    assert!(content(&m, "/m/new/a.md")
        .unwrap()
        .ends_with("\n\nalpha\nbetween\ndelta\n"));
    assert_eq!(
        err_text(
            &m,
            Cmd::Insert {
                path: "/memories/new/a.md".into(),
                insert_line: 11,
                insert_text: "x".into(),
            },
        ),
        (
            Code::InvalidInput,
            "Invalid `insert_line` parameter: 11. It should be within the range of lines of the file: [0, 10]".into()
        )
    );
    assert_eq!(
        err_text(
            &m,
            Cmd::Insert {
                path: "/memories/nope.md".into(),
                insert_line: 0,
                insert_text: "x".into(),
            },
        ),
        (
            Code::NotFound,
            "The path /memories/nope.md does not exist. Please provide a valid path.".into()
        )
    );
    assert_eq!(
        run(
            &m,
            Cmd::Rename {
                old_path: "/memories/new/a.md".into(),
                new_path: "/memories/b.md".into()
            }
        )
        .unwrap(),
        "Successfully renamed /memories/new/a.md to /memories/b.md"
    );
    assert!(content(&m, "/m/new/a.md").is_none());
    assert!(index(&m).contains("- [Alpha notes](b.md)") && !index(&m).contains("new/a.md"));
    assert_eq!(
        err_text(
            &m,
            Cmd::Rename {
                old_path: "/memories/b.md".into(),
                new_path: "/memories/note.md".into(),
            }
        ),
        (
            Code::AlreadyExists,
            "The destination /memories/note.md already exists".into()
        )
    );
    assert_eq!(
        err_text(
            &m,
            Cmd::Rename {
                old_path: "/memories/gone.md".into(),
                new_path: "/memories/c.md".into(),
            }
        ),
        (
            Code::NotFound,
            "The path /memories/gone.md does not exist".into()
        )
    );
    assert_eq!(
        run(
            &m,
            Cmd::Delete {
                path: "/memories/b.md".into()
            }
        )
        .unwrap(),
        "Successfully deleted /memories/b.md"
    );
    assert!(!index(&m).contains("b.md"));
    assert!(index(&m).contains("note.md"));
    assert_eq!(
        run(
            &m,
            Cmd::Delete {
                path: "/memories/sub".into()
            }
        )
        .unwrap(),
        "Successfully deleted /memories/sub"
    );
    assert!(content(&m, "/m/sub/deep/x.md").is_none());
    assert_eq!(
        err_text(
            &m,
            Cmd::Delete {
                path: "/memories/sub/x.md".into()
            }
        ),
        (
            Code::NotFound,
            "The path /memories/sub/x.md does not exist".into()
        )
    );
    assert_eq!(
        err_text(
            &m,
            Cmd::Delete {
                path: "/memories".into()
            }
        ),
        (
            Code::InvalidInput,
            "Cannot delete the /memories directory itself".into()
        )
    );
    assert_eq!(
        err_text(
            &m,
            Cmd::Create {
                path: "/memories/".into(),
                file_text: String::new()
            }
        ),
        (Code::AlreadyExists, "File /memories/ already exists".into())
    );
    // The library's own files are neither listed nor reachable.
    assert_eq!(
        run(&m, view("/memories/.memdir-undo.json"))
            .unwrap_err()
            .code,
        Code::InvalidInput
    );
    assert_eq!(content(&m, "/m/.memdir-undo.json").unwrap(), "{}");
}

#[test]
fn files_written_through_the_tool_become_memories() {
    let m = memdir(WriteMode::Auto);
    run(
        &m,
        Cmd::Create {
            path: "/memories/feedback_testing-policy.md".into(),
            file_text: "Integration tests hit a real database.\n".into(),
        },
    )
    .unwrap();
    let text = content(&m, "/m/feedback_testing-policy.md").unwrap();
    let parsed = memdir::parse_frontmatter(&text);
    assert_eq!(parsed.header.name.as_deref(), Some("testing policy"));
    assert_eq!(
        parsed.header.memory_type,
        Some(memdir::MemoryType::Feedback)
    );
    assert_eq!(parsed.body, "Integration tests hit a real database.\n");
    assert!(index(&m).contains("- [testing policy](feedback_testing-policy.md) — "));
    // Lint finds nothing wrong with what the tool wrote.
    let findings = block_on(m.lint(&Default::default())).unwrap();
    let codes: Vec<&str> = findings
        .findings
        .iter()
        .filter(|f| f.file.as_deref() != Some("sub/deep/x.md"))
        .map(|f| f.code)
        .collect();
    assert!(
        !codes.iter().any(|c| [
            "UNINDEXED_FILE",
            "MISSING_NAME",
            "MISSING_DESCRIPTION",
            "DANGLING_INDEX_ENTRY"
        ]
        .contains(c)),
        "{codes:?}"
    );
    // Non-memory files and the index itself are written as given.
    run(
        &m,
        Cmd::Create {
            path: "/memories/data.json".into(),
            file_text: "{}".into(),
        },
    )
    .unwrap();
    assert_eq!(content(&m, "/m/data.json").unwrap(), "{}");
    // Team files land in the team index.
    run(
        &m,
        Cmd::Create {
            path: "/memories/team/deploys.md".into(),
            file_text: "Deploys go out on Tuesdays.\n".into(),
        },
    )
    .unwrap();
    assert!(content(&m, "/m/team/MEMORY.md")
        .unwrap()
        .contains("(deploys.md)"));
    assert!(!index(&m).contains("deploys.md"));
}

#[test]
fn traversal_and_escapes_are_refused() {
    let m = memdir(WriteMode::Auto);
    m.fs().symlink("/outside", "/m/link");
    let before = m.fs().snapshot();
    let cases = [
        ("/memories/../outside/secret.md", Code::PathEscapes),
        ("/memories/a/../../outside/x.md", Code::PathEscapes),
        ("/outside/secret.md", Code::PathEscapes),
        ("/memories-evil/x.md", Code::PathEscapes),
        (
            "/memories/%2e%2e/outside/x.md",
            Code::PathUrlEncodedTraversal,
        ),
        ("/memories/..%2Foutside", Code::PathUrlEncodedTraversal),
        ("/memories/．．/x.md", Code::PathUnicodeTraversal),
        ("/memories/..\\outside", Code::PathBackslash),
        ("/memories/x\0.md", Code::PathNullByte),
        ("/memories//outside/secret.md", Code::PathAbsolute),
        ("/memories/link/secret.md", Code::PathSymlinkEscape),
    ];
    for (path, code) in cases {
        let create = Cmd::Create {
            path: path.into(),
            file_text: "pwned".into(),
        };
        assert_eq!(run(&m, create).unwrap_err().code, code, "create {path:?}");
        assert_eq!(run(&m, view(path)).unwrap_err().code, code, "view {path:?}");
    }
    let rename = Cmd::Rename {
        old_path: "/memories/note.md".into(),
        new_path: "/memories/../x.md".into(),
    };
    assert_eq!(run(&m, rename).unwrap_err().code, Code::PathEscapes);
    assert_eq!(m.fs().snapshot(), before);
}

/// Every command on `path`, each of which must be refused as a library-owned name.
fn every_command(path: &str) -> Vec<Cmd> {
    vec![
        view(path),
        Cmd::Create {
            path: path.into(),
            file_text: "pwned".into(),
        },
        Cmd::StrReplace {
            path: path.into(),
            old_str: "url".into(),
            new_str: "pwned".into(),
        },
        Cmd::Insert {
            path: path.into(),
            insert_line: 0,
            insert_text: "pwned".into(),
        },
        Cmd::Delete { path: path.into() },
        Cmd::Rename {
            old_path: path.into(),
            new_path: "/memories/stolen.md".into(),
        },
        Cmd::Rename {
            old_path: "/memories/note.md".into(),
            new_path: path.into(),
        },
    ]
}

#[test]
fn library_files_and_git_sync_data_are_reserved_in_any_case() {
    let m = memdir(WriteMode::Auto);
    m.fs().insert_file(
        "/m/.git-sync/team/config",
        "[remote \"origin\"]\n\turl = x\n",
    );
    let before = m.fs().snapshot();
    let paths = [
        "/memories/.git-sync",
        "/memories/.git-sync/",
        "/memories/.git-sync/team/config",
        "/memories/.GIT-SYNC/team/config",
        "/memories/.Git-Sync/private/new.md",
        "/memories/.MEMDIR.LOCK",
        "/memories/.Memdir-Undo.json",
        "/memories/.Consolidate-Lock",
        "/memories/.MEMDIR-JOURNAL",
        "/memories/.memdir-vectors",
        "/memories/.Memdir-Index",
        "/memories/MEMORY.md.TMP-abc",
    ];
    for path in paths {
        for cmd in every_command(path) {
            let shown = format!("{cmd:?}");
            let (code, message) = err_text(&m, cmd);
            assert_eq!(code, Code::InvalidInput, "{shown}");
            assert!(
                message.ends_with("it names a file the memory library keeps for itself."),
                "{shown}: {message}"
            );
        }
    }
    assert_eq!(m.fs().snapshot(), before);
    // A `.git-sync` deeper down is the model's own folder.
    let create = Cmd::Create {
        path: "/memories/notes/.git-sync/a.md".into(),
        file_text: "mine".into(),
    };
    run(&m, create).unwrap();
    assert!(content(&m, "/m/notes/.git-sync/a.md").is_some_and(|t| t.ends_with("mine")));
}

#[test]
fn team_writes_pass_the_secret_guard() {
    let m = memdir_unguarded(WriteMode::Auto);
    let secret = format!("npm_{}", "x".repeat(36));
    let err = run(
        &m,
        Cmd::Create {
            path: "/memories/team/a.md".into(),
            file_text: format!("token {secret}"),
        },
    )
    .unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);
    assert!(!err.message.contains(&secret));
    // Assembled from pieces by an edit: the whole new file is checked.
    run(
        &m,
        Cmd::Create {
            path: "/memories/team/b.md".into(),
            file_text: format!("token npm_{}END", "x".repeat(30)),
        },
    )
    .unwrap();
    let edit = Cmd::Insert {
        path: "/memories/team/b.md".into(),
        insert_line: 0,
        insert_text: "header".into(),
    };
    run(&m, edit).unwrap();
    let edit = Cmd::StrReplace {
        path: "/memories/team/b.md".into(),
        old_str: "END".into(),
        new_str: "xxxxxx".into(),
    };
    assert_eq!(run(&m, edit).unwrap_err().code, Code::SecretDetected);
    // Moving a private file holding a secret into team memory.
    run(
        &m,
        Cmd::Create {
            path: "/memories/private.md".into(),
            file_text: secret.clone(),
        },
    )
    .unwrap();
    let rename = Cmd::Rename {
        old_path: "/memories/private.md".into(),
        new_path: "/memories/team/p.md".into(),
    };
    assert_eq!(run(&m, rename).unwrap_err().code, Code::SecretDetected);
}

#[test]
fn commands_arrive_as_the_api_sends_them() {
    let json =
        r#"{"command":"insert","path":"/memories/note.md","insert_line":0,"insert_text":"top"}"#;
    let cmd: Cmd = serde_yaml::from_str(json).unwrap();
    assert_eq!(
        cmd,
        Cmd::Insert {
            path: "/memories/note.md".into(),
            insert_line: 0,
            insert_text: "top".into()
        }
    );
    let cmd: Cmd =
        serde_yaml::from_str(r#"{"command":"view","path":"/memories","view_range":[1,2]}"#)
            .unwrap();
    assert_eq!(
        cmd,
        Cmd::View {
            path: "/memories".into(),
            view_range: Some([1, 2])
        }
    );
    assert!(serde_yaml::from_str::<Cmd>(r#"{"command":"format_disk","path":"/"}"#).is_err());
}

#[test]
fn works_over_a_real_directory() {
    let tmp = TempDir::new("memory-tool");
    tmp.symlink("/etc", "etc-link");
    let m: Memdir<StdFs, TestClock, NoLlm> = Memdir::new(
        StdFs::new(),
        TestClock::new(T0),
        None,
        NoTelemetry,
        MemdirConfig::new(tmp.dir()),
    );
    block_on(handle_memory_command(
        &m,
        Cmd::Create {
            path: "/memories/a.md".into(),
            file_text: "hi\n".into(),
        },
    ))
    .unwrap();
    assert!(tmp.read("a.md").ends_with("---\n\nhi\n"));
    let escape = Cmd::Create {
        path: "/memories/etc-link/x.md".into(),
        file_text: "x".into(),
    };
    assert_eq!(
        block_on(handle_memory_command(&m, escape))
            .unwrap_err()
            .code,
        Code::PathSymlinkEscape
    );
    assert!(!Path::new("/etc/x.md").exists());
    let renamed = Cmd::Rename {
        old_path: "/memories/a.md".into(),
        new_path: "/memories/d/b.md".into(),
    };
    block_on(handle_memory_command(&m, renamed)).unwrap();
    assert!(tmp.read("d/b.md").ends_with("---\n\nhi\n"));
    assert!(tmp.read("MEMORY.md").contains("](d/b.md)"));
    assert!(!tmp.exists("a.md"));
}

use std::path::Path;

// ---------- every write path × every mode ----------

struct Replies;

impl Llm for Replies {
    async fn complete(&self, request: &LlmRequest) -> HostResult<String> {
        Ok(match request.purpose {
            memdir::LlmPurpose::Extract => r#"{"operations":[{"op":"create","file":"user_x.md","type":"user","name":"X","description":"x","body":"x"}]}"#,
            _ => r#"{"operations":[{"op":"delete","file":"p.md"}]}"#,
        }
        .to_owned())
    }
}

fn matrix_memdir(mode: WriteMode) -> Memdir<MemFs, TestClock, Replies> {
    let m = memdir(mode);
    let fs = MemFs::new();
    for (path, data) in m.fs().snapshot() {
        fs.insert_file(&path, data);
    }
    let mut c = MemdirConfig::new("/m/");
    c.write_mode = mode;
    Memdir::new(fs, TestClock::new(T0), Some(Replies), NoTelemetry, c)
}

/// What one write path did: refused (with the code), proposed, or wrote.
#[derive(Debug, PartialEq)]
enum Did {
    Refused(Code),
    Proposed,
    Wrote,
}

fn write_paths(m: &Memdir<MemFs, TestClock, Replies>) -> Vec<(&'static str, Did)> {
    let save = SaveInput {
        name: "N".into(),
        description: "d".into(),
        memory_type: "user".into(),
        body: "b".into(),
        ..SaveInput::default()
    };
    let store = |r: memdir::Result<SaveOutcome>| match r {
        Err(e) => Did::Refused(e.code),
        Ok(SaveOutcome::Proposed(_)) => Did::Proposed,
        Ok(_) => Did::Wrote,
    };
    let tool = |cmd: Cmd| match block_on(m.memory_command(cmd)) {
        Err(e) => Did::Refused(e.code),
        Ok(MemoryToolOutcome::Proposed { .. }) => Did::Proposed,
        Ok(MemoryToolOutcome::Done { .. }) => Did::Wrote,
    };
    let convo = [ConversationMessage::user("remember x").with_id("1")];
    let changes = MemoryChanges {
        description: Some("new".into()),
        ..MemoryChanges::default()
    };
    vec![
        ("save", store(block_on(m.save(save.clone())))),
        ("update", store(block_on(m.update("note.md", changes)))),
        ("delete", store(block_on(m.delete("sub/deep/x.md")))),
        (
            "apply_proposal",
            store(block_on(m.apply_proposal(Proposal::Save(SaveInput {
                file: Some("p.md".into()),
                ..save
            })))),
        ),
        (
            "extract",
            match block_on(m.extract(&convo, &ExtractOptions::default())) {
                Err(e) => Did::Refused(e.code),
                Ok(o) if !o.proposals.is_empty() => Did::Proposed,
                Ok(o) => {
                    assert_eq!(o.created, ["user_x.md"]);
                    Did::Wrote
                }
            },
        ),
        (
            "consolidate",
            match block_on(m.consolidate(&ConsolidateOptions {
                force: true,
                auto_apply: true,
                ..ConsolidateOptions::default()
            })) {
                Err(e) => Did::Refused(e.code),
                Ok(ConsolidateOutcome::Ready {
                    applied: Some(_), ..
                }) => Did::Wrote,
                Ok(ConsolidateOutcome::Ready { applied: None, .. }) => Did::Proposed,
                Ok(other) => panic!("{other:?}"),
            },
        ),
        (
            "apply_changeset",
            match block_on(m.apply_changeset(&Changeset {
                create: vec![FileCreate {
                    file: "c.md".into(),
                    content: "c".into(),
                }],
                ..Changeset::default()
            })) {
                Err(e) => Did::Refused(e.code),
                Ok(_) => Did::Wrote,
            },
        ),
        (
            "undo_changeset",
            match block_on(m.undo_changeset()) {
                Err(e) => Did::Refused(e.code),
                Ok(_) => Did::Wrote,
            },
        ),
        (
            "tool create",
            tool(Cmd::Create {
                path: "/memories/t.md".into(),
                file_text: "t".into(),
            }),
        ),
        (
            "tool str_replace",
            tool(Cmd::StrReplace {
                path: "/memories/note.md".into(),
                old_str: "line one".into(),
                new_str: "1".into(),
            }),
        ),
        (
            "tool insert",
            tool(Cmd::Insert {
                path: "/memories/note.md".into(),
                insert_line: 0,
                insert_text: "0".into(),
            }),
        ),
        (
            "tool rename",
            tool(Cmd::Rename {
                old_path: "/memories/MEMORY.md".into(),
                new_path: "/memories/INDEX.md".into(),
            }),
        ),
        (
            "tool delete",
            tool(Cmd::Delete {
                path: "/memories/sub".into(),
            }),
        ),
    ]
}

#[test]
fn every_write_path_obeys_the_write_mode() {
    for mode in [WriteMode::Off, WriteMode::ReadOnly] {
        let m = matrix_memdir(mode);
        let before = m.fs().snapshot();
        for (path, did) in write_paths(&m) {
            assert_eq!(
                did,
                Did::Refused(Code::WriteForbidden),
                "{path} in {mode:?}"
            );
        }
        assert_eq!(m.fs().snapshot(), before, "{mode:?}");
    }
    // Confirm: every write becomes a proposal; the approval paths (apply_proposal,
    // apply_changeset, undo_changeset) are the host saying yes.
    let m = matrix_memdir(WriteMode::Confirm);
    let memory_files = |m: &Memdir<MemFs, TestClock, Replies>| {
        let mut files = m.fs().snapshot();
        files.retain(|(p, _)| {
            !p.ends_with(".consolidate-lock") && !p.ends_with(".memdir-undo.json")
        });
        files
    };
    let before = memory_files(&m);
    let results = write_paths(&m);
    let approvals = ["apply_proposal", "apply_changeset", "undo_changeset"];
    for (path, did) in &results {
        if approvals.contains(path) {
            assert_eq!(*did, Did::Wrote, "{path}");
        } else {
            assert_eq!(*did, Did::Proposed, "{path}");
        }
    }
    // The approvals wrote p.md and c.md, then the undo took c.md back; consolidation only
    // proposed to delete p.md; nothing else changed.
    assert!(content_of(&m, "/m/p.md").is_some());
    let mut after = memory_files(&m);
    after.retain(|(p, _)| p != "/m/p.md" && p != "/m/MEMORY.md");
    let mut expected = before.clone();
    expected.retain(|(p, _)| p != "/m/MEMORY.md");
    assert_eq!(after, expected);
    // Auto: everything writes.
    let m = matrix_memdir(WriteMode::Auto);
    for (path, did) in write_paths(&m) {
        assert_eq!(did, Did::Wrote, "{path}");
    }
    assert!(content_of(&m, "/m/INDEX.md").is_some());
    assert!(
        content_of(&m, "/m/p.md").is_none(),
        "consolidation deleted p.md"
    );
}

fn content_of(m: &Memdir<MemFs, TestClock, Replies>, path: &str) -> Option<Vec<u8>> {
    m.fs()
        .snapshot()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, d)| d)
}

#[test]
fn confirmed_tool_commands_apply_later() {
    let m = memdir(WriteMode::Confirm);
    let outcome = block_on(m.memory_command(Cmd::Create {
        path: "/memories/c.md".into(),
        file_text: "c".into(),
    }))
    .unwrap();
    let MemoryToolOutcome::Proposed { text, command } = outcome else {
        panic!()
    };
    assert!(text.contains("waiting for approval"));
    assert!(content(&m, "/m/c.md").is_none());
    assert_eq!(
        block_on(m.apply_memory_command(command)).unwrap(),
        "File created successfully at: /memories/c.md"
    );
    assert!(content(&m, "/m/c.md").unwrap().ends_with("---\n\nc"));
    // Reads still work in confirm and read-only, not in off.
    assert!(run(&m, view("/memories/c.md")).is_ok());
    assert!(run(&memdir(WriteMode::ReadOnly), view("/memories")).is_ok());
    assert_eq!(
        run(&memdir(WriteMode::Off), view("/memories"))
            .unwrap_err()
            .code,
        Code::WriteForbidden
    );
    // Bad paths fail at proposal time, not at approval.
    let err = block_on(m.memory_command(Cmd::Delete {
        path: "/memories/../x".into(),
    }))
    .unwrap_err();
    assert_eq!(err.code, Code::PathEscapes);
}

#[test]
fn the_secret_guard_covers_private_tool_writes_unless_turned_off() {
    let secret = format!("ghp_{}", "a1B2c3D4".repeat(4) + "e5F6");
    let create = |path: &str| Cmd::Create {
        path: path.into(),
        file_text: format!("token {secret}\n"),
    };
    let unguarded = memdir_unguarded(WriteMode::Auto);
    block_on(unguarded.memory_command(create("/memories/private.md"))).unwrap();
    let err = block_on(unguarded.memory_command(create("/memories/team/shared.md"))).unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);

    // The default guards private memory too.
    let guarded = memdir(WriteMode::Auto);
    let err = block_on(guarded.memory_command(create("/memories/private.md"))).unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);
    assert!(!err.message.contains(&secret));
    assert!(!guarded
        .fs()
        .snapshot()
        .iter()
        .any(|(p, _)| p == "/m/private.md"));
}
