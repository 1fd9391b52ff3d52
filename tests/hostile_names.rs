//! Hostile names, keys and bytes on every write path (issue #19 items 2, 10, 11, 12, 13, 16, 18):
//! the store (save / update / delete), the memory tool, extraction; one name policy for both
//! scopes; secrets in names and in error messages; the memory directory itself.

mod common;

use common::{block_on, ScriptedLlm, TestClock};
use memdir::extract::{ConversationMessage, ExtractOptions};
use memdir::memory_tool::{handle_memory_command, MemoryToolCommand as Cmd};
use memdir::store::{MemoryChanges, SaveInput, Scope};
use memdir::{Code, MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry};

const T0: f64 = 1_700_000_000_000.0;
const LOG: &str = "/m/logs/2024/01/2024-01-01.md";
const INDEX: &str = "- [A](a.md) — first memory\n";
const A: &str = "---\nname: A\ndescription: first memory\ntype: user\n---\n\nbody of a\n";

fn token() -> String {
    format!("ghp_{}", "a1B2".repeat(9))
}

fn seeded_fs() -> MemFs {
    let fs = MemFs::new();
    fs.insert_file("/m/a.md", A);
    fs.insert_file("/m/MEMORY.md", INDEX);
    fs.insert_file(LOG, "- 10:00 started\n");
    fs
}

fn memdir_with(fs: MemFs, config: MemdirConfig) -> Memdir<MemFs, TestClock, NoLlm> {
    Memdir::new(fs, TestClock::new(T0), None, NoTelemetry, config)
}

fn memdir() -> Memdir<MemFs, TestClock, NoLlm> {
    memdir_with(seeded_fs(), MemdirConfig::new("/m/"))
}

fn bytes(m: &Memdir<MemFs, TestClock, NoLlm>, path: &str) -> Option<Vec<u8>> {
    m.fs()
        .snapshot()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, d)| d)
}

fn text(m: &Memdir<MemFs, TestClock, NoLlm>, path: &str) -> Option<String> {
    bytes(m, path).map(|d| String::from_utf8(d).unwrap())
}

fn input(file: &str, scope: Scope) -> SaveInput {
    SaveInput {
        name: "Note".into(),
        description: "a note".into(),
        memory_type: "project".into(),
        body: "text".into(),
        file: Some(file.into()),
        scope,
        ..SaveInput::default()
    }
}

fn save_err(m: &Memdir<MemFs, TestClock, NoLlm>, file: &str, scope: Scope) -> memdir::Error {
    block_on(m.save(input(file, scope))).expect_err(file)
}

fn tool(m: &Memdir<MemFs, TestClock, NoLlm>, cmd: Cmd) -> memdir::Result<String> {
    block_on(handle_memory_command(m, cmd))
}

fn create(path: &str) -> Cmd {
    Cmd::Create {
        path: path.into(),
        file_text: "hello\n".into(),
    }
}

/// Every file and its bytes: what "nothing was written" compares.
fn snapshot(m: &Memdir<MemFs, TestClock, NoLlm>) -> Vec<(String, Vec<u8>)> {
    m.fs().snapshot()
}

// ---------- item 2: a secret in a file name ----------

#[test]
fn a_secret_in_a_team_file_name_is_refused_by_save_and_the_memory_tool() {
    let m = memdir();
    let before = snapshot(&m);
    let name = format!("{}.md", token());
    let err = save_err(&m, &name, Scope::Team);
    assert_eq!(err.code, Code::SecretDetected);
    assert!(!err.message.contains(&token()), "{}", err.message);
    let err = tool(&m, create(&format!("/memories/team/{name}"))).unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);
    assert!(!err.message.contains(&token()));
    // A rename into team memory under such a name too.
    let err = tool(
        &m,
        Cmd::Rename {
            old_path: "/memories/a.md".into(),
            new_path: format!("/memories/team/{name}"),
        },
    )
    .unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);
    assert_eq!(snapshot(&m), before);
    // A secret in the hook (the index line) of a team memory: refused as well.
    let mut hooked = input("notes.md", Scope::Team);
    hooked.description = format!("see {}", token());
    let err = block_on(m.save(hooked)).unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);
    assert_eq!(snapshot(&m), before);
}

#[test]
fn private_names_are_scanned_when_the_host_guards_private_memory() {
    let name = format!("{}.md", token());
    let mut config = MemdirConfig::new("/m/");
    config.store.guard_private_secrets = true;
    let m = memdir_with(seeded_fs(), config);
    let before = snapshot(&m);
    assert_eq!(
        save_err(&m, &name, Scope::Private).code,
        Code::SecretDetected
    );
    assert_eq!(
        tool(&m, create(&format!("/memories/{name}")))
            .unwrap_err()
            .code,
        Code::SecretDetected
    );
    assert_eq!(snapshot(&m), before);
    // With the guard turned off (it is on by default), private memory is not scanned.
    let mut config = MemdirConfig::new("/m/");
    config.store.guard_private_secrets = false;
    let m = memdir_with(seeded_fs(), config);
    assert!(block_on(m.save(input(&name, Scope::Private))).is_ok());
}

// ---------- item 10: names the index line cannot represent ----------

#[test]
fn a_name_that_would_hijack_another_index_entry_is_refused_everywhere() {
    let m = memdir();
    let before = snapshot(&m);
    // Formatted as `- [Note](<a.md>) — b.md>) — a note`, this line parses as pointing at a.md.
    for file in ["a.md>) — b.md", "a.md>) b.md", "x>)\u{2014}a.md"] {
        let err = save_err(&m, file, Scope::Private);
        assert_eq!(err.code, Code::InvalidMemory, "{file:?}: {}", err.message);
        assert_eq!(
            save_err(&m, file, Scope::Team).code,
            Code::InvalidMemory,
            "{file:?}"
        );
        let err = tool(&m, create(&format!("/memories/{file}"))).unwrap_err();
        assert_eq!(err.code, Code::InvalidMemory, "{file:?}");
    }
    assert_eq!(snapshot(&m), before);
    assert_eq!(text(&m, "/m/MEMORY.md").unwrap(), INDEX);
    // Names with spaces and parentheses that do round-trip are still fine.
    block_on(m.save(input("notes (old) v2.md", Scope::Private))).unwrap();
    let index = text(&m, "/m/MEMORY.md").unwrap();
    assert!(index.contains("(<notes (old) v2.md>)"), "{index}");
    assert!(index.starts_with(INDEX));
}

#[test]
fn extraction_refuses_names_the_index_cannot_represent_and_logs() {
    let reply = r#"{"operations":[
      {"op":"create","file":"a.md>) — z.md","type":"user","name":"Z","description":"z","body":"z"},
      {"op":"delete","file":"logs/2024/01/2024-01-01.md"},
      {"op":"create","file":"logs/notes.md","type":"user","name":"L","description":"l","body":"l"},
      {"op":"create","file":"evil\u202Edm.md","type":"user","name":"E","description":"e","body":"e"}
    ]}"#;
    let llm = ScriptedLlm::new(&[reply]);
    let m = Memdir::new(
        seeded_fs(),
        TestClock::new(T0),
        Some(&llm),
        NoTelemetry,
        MemdirConfig::new("/m/"),
    );
    let before = m.fs().snapshot();
    let conversation = [ConversationMessage::user("remember things").with_id("u1")];
    let outcome = block_on(m.extract(&conversation, &ExtractOptions::default())).unwrap();
    let codes: Vec<&str> = outcome.rejected.iter().map(|r| r.code.as_str()).collect();
    assert_eq!(codes, ["INVALID_MEMORY"; 4], "{:?}", outcome.rejected);
    assert!(outcome.created.is_empty() && outcome.deleted.is_empty());
    assert_eq!(m.fs().snapshot(), before);
}

// ---------- item 11: bytes that are not UTF-8 ----------

#[test]
fn edits_refuse_a_file_whose_bytes_are_not_utf8_and_keep_them() {
    let fs = seeded_fs();
    // `café` with `é` as the Latin-1 byte 0xE9: not UTF-8.
    let latin1 =
        b"---\nname: Cafe\ndescription: a place\ntype: user\n---\n\ncaf\xe9 on the corner\n";
    fs.insert_file("/m/cafe.md", latin1);
    let m = memdir_with(fs, MemdirConfig::new("/m/"));
    let changes = MemoryChanges {
        description: Some("the place".into()),
        ..MemoryChanges::default()
    };
    let err = block_on(m.update("cafe.md", changes)).unwrap_err();
    assert_eq!(err.code, Code::InvalidMemory);
    assert!(err.message.contains("not valid UTF-8"), "{}", err.message);
    for cmd in [
        Cmd::StrReplace {
            path: "/memories/cafe.md".into(),
            old_str: "corner".into(),
            new_str: "square".into(),
        },
        Cmd::Insert {
            path: "/memories/cafe.md".into(),
            insert_line: 0,
            insert_text: "x".into(),
        },
    ] {
        assert_eq!(tool(&m, cmd).unwrap_err().code, Code::InvalidMemory);
    }
    assert_eq!(bytes(&m, "/m/cafe.md").unwrap(), latin1);
    // Reading for the model stays lossy and works.
    let headers = block_on(m.scan()).unwrap();
    assert!(headers.iter().any(|h| h.filename == "cafe.md"));
    // Replacing every part loses nothing, so it is allowed.
    let all = MemoryChanges {
        name: Some("Cafe".into()),
        description: Some("the place".into()),
        memory_type: Some("user".into()),
        body: Some("café on the corner\n".into()),
        ..MemoryChanges::default()
    };
    block_on(m.update("cafe.md", all)).unwrap();
    assert!(text(&m, "/m/cafe.md").unwrap().contains("café"));
    // A real U+FFFD in a valid file is no reason to refuse.
    block_on(m.save(SaveInput {
        body: "replacement \u{FFFD} char".into(),
        ..input("fffd.md", Scope::Private)
    }))
    .unwrap();
    let changes = MemoryChanges {
        description: Some("changed".into()),
        ..MemoryChanges::default()
    };
    block_on(m.update("fffd.md", changes)).unwrap();
}

#[test]
fn an_index_that_is_not_utf8_is_not_rewritten() {
    let fs = seeded_fs();
    let index = b"- [A](a.md) \xe2\x80\x94 first memory\n- [Caf\xe9](cafe.md) \xe2\x80\x94 old\n";
    fs.insert_file("/m/MEMORY.md", index);
    let m = memdir_with(fs, MemdirConfig::new("/m/"));
    let err = save_err(&m, "new.md", Scope::Private);
    assert_eq!(err.code, Code::InvalidMemory);
    assert_eq!(
        block_on(m.delete("a.md")).unwrap_err().code,
        Code::InvalidMemory
    );
    assert_eq!(bytes(&m, "/m/MEMORY.md").unwrap(), index);
    assert!(text(&m, "/m/a.md").is_some());
    assert!(block_on(m.read_index())
        .unwrap()
        .content
        .contains("Caf\u{FFFD}"));
}

// ---------- item 12: the memory directory ----------

#[test]
fn empty_relative_and_nul_directories_are_refused() {
    for dir in ["", "/", "memory/", "./m", "/m\0x/", "C:"] {
        let err = MemdirConfig::try_new(dir).unwrap_err();
        assert_eq!(err.code, Code::InvalidInput, "{dir:?}");
    }
    assert_eq!(
        MemdirConfig::try_new("/home/u/m//").unwrap().dir,
        "/home/u/m/"
    );
    // `new` no longer turns an empty directory into the filesystem root, and a memdir opened
    // on one anyway refuses every write instead of writing at `/` or relative to the cwd.
    assert_eq!(MemdirConfig::new("").dir, "");
    for dir in ["", "memory/"] {
        let m = memdir_with(MemFs::new(), MemdirConfig::new(dir));
        assert_eq!(
            block_on(m.save(input("x.md", Scope::Private)))
                .unwrap_err()
                .code,
            Code::InvalidInput
        );
        assert_eq!(
            block_on(m.delete("x.md")).unwrap_err().code,
            Code::InvalidInput
        );
        let date = memdir::store::LocalDate {
            year: 2024,
            month: 1,
            day: 1,
        };
        assert_eq!(
            block_on(m.append_log("x", date)).unwrap_err().code,
            Code::InvalidInput
        );
        assert_eq!(
            tool(&m, create("/memories/x.md")).unwrap_err().code,
            Code::InvalidInput
        );
        assert!(
            m.fs().snapshot().is_empty(),
            "{dir:?}: {:?}",
            m.fs().snapshot()
        );
    }
}

// ---------- item 13: secrets in error messages ----------

#[test]
fn error_messages_never_repeat_a_secret() {
    let m = memdir();
    let t = token();
    let mut bad_type = input("x.md", Scope::Private);
    bad_type.memory_type = t.clone();
    let cases: Vec<(memdir::Error, Code)> = vec![
        (block_on(m.save(bad_type)).unwrap_err(), Code::InvalidMemory),
        (
            save_err(&m, &format!("{t}\0.md"), Scope::Private),
            Code::PathNullByte,
        ),
        (
            save_err(&m, &format!("a/../../{t}.md"), Scope::Private),
            Code::PathEscapes,
        ),
        (
            memdir::path_key::sanitize_path_key(&format!("/{t}")).unwrap_err(),
            Code::PathAbsolute,
        ),
        (
            block_on(memdir::path_key::validate_team_key(
                m.fs(),
                "/m/team/",
                &format!("../{t}"),
            ))
            .unwrap_err(),
            Code::PathEscapes,
        ),
        (
            tool(&m, create(&format!("/memories/a\0{t}"))).unwrap_err(),
            Code::PathNullByte,
        ),
        (
            MemdirConfig::try_new(format!("{t}/")).unwrap_err(),
            Code::InvalidInput,
        ),
    ];
    for (err, code) in cases {
        assert_eq!(err.code, code, "{}", err.message);
        assert!(!err.message.contains(&t), "{}", err.message);
        assert!(err.message.contains("[REDACTED]"), "{}", err.message);
        assert!(!format!("{err:?} {err}").contains(&t));
    }
}

// ---------- item 16: one name policy for both scopes ----------

#[test]
fn private_and_team_scope_refuse_the_same_names_with_the_same_codes() {
    let m = memdir();
    let before = snapshot(&m);
    let names = [
        "\u{FF0E}\u{FF0E}\u{FF0F}x.md", // fullwidth `../`
        "\u{2025}/x.md",                // two-dot leader
        "%2e%2e/x.md",                  // URL-encoded `..`
        "a%2Fb.md",                     // URL-encoded `/`
        "evil\u{202E}dm.md",            // right-to-left override
        "zero\u{200B}width.md",         // zero-width space
        "logs/2026/12/2026-12-01.md",   // the daily log
        "Logs/notes.md",                // the same directory on a case-insensitive disk
        "a>) b.md",                     // not representable in an index line
    ];
    for name in names {
        let private = save_err(&m, name, Scope::Private);
        let team = save_err(&m, name, Scope::Team);
        assert_eq!(private.code, team.code, "{name:?}");
        assert!(
            matches!(
                private.code,
                Code::InvalidMemory | Code::PathUrlEncodedTraversal | Code::PathUnicodeTraversal
            ),
            "{name:?}: {:?}",
            private.code
        );
    }
    assert_eq!(snapshot(&m), before);
    // A private file may not reach team memory by case either.
    assert_eq!(
        save_err(&m, "Team/x.md", Scope::Private).code,
        Code::InvalidMemory
    );
}

// ---------- item 18: daily logs are not memories ----------

#[test]
fn no_write_path_touches_the_daily_logs() {
    let m = memdir();
    let before = snapshot(&m);
    let log = "logs/2024/01/2024-01-01.md";
    assert_eq!(
        block_on(m.delete(log)).unwrap_err().code,
        Code::InvalidMemory
    );
    assert_eq!(
        block_on(m.update(
            log,
            MemoryChanges {
                description: Some("x".into()),
                ..MemoryChanges::default()
            }
        ))
        .unwrap_err()
        .code,
        Code::InvalidMemory
    );
    assert_eq!(
        save_err(&m, "logs/x.md", Scope::Private).code,
        Code::InvalidMemory
    );
    let tool_path = format!("/memories/{log}");
    for cmd in [
        create(&tool_path),
        create("/memories/logs/new.md"),
        Cmd::Delete {
            path: tool_path.clone(),
        },
        Cmd::Delete {
            path: "/memories/logs".into(),
        },
        Cmd::StrReplace {
            path: tool_path.clone(),
            old_str: "started".into(),
            new_str: "x".into(),
        },
        Cmd::Insert {
            path: tool_path.clone(),
            insert_line: 0,
            insert_text: "x".into(),
        },
        Cmd::Rename {
            old_path: tool_path.clone(),
            new_path: "/memories/moved.md".into(),
        },
        Cmd::Rename {
            old_path: "/memories/a.md".into(),
            new_path: "/memories/logs/a.md".into(),
        },
    ] {
        let name = format!("{cmd:?}");
        assert_eq!(
            tool(&m, cmd).unwrap_err().code,
            Code::InvalidMemory,
            "{name}"
        );
    }
    assert_eq!(snapshot(&m), before);
    // Reading the log through the tool still works, and appending is still the way in.
    assert!(tool(
        &m,
        Cmd::View {
            path: tool_path,
            view_range: None
        }
    )
    .unwrap()
    .contains("started"));
    let date = memdir::store::LocalDate {
        year: 2024,
        month: 1,
        day: 1,
    };
    block_on(m.append_log("- 11:00 more", date)).unwrap();
    assert!(text(&m, LOG).unwrap().ends_with("- 11:00 more\n"));
}
