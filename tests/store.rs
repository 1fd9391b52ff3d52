//! The store over `MemFs` and over real temp dirs: read_index, scan, save/update/delete/list,
//! locking, cap warnings, the daily log, and bad input.

mod common;

use common::std_fs::{StdFs, TempDir};
use common::{block_on, RealClock, Recorder, Tap, TestClock};
use memdir::future::join_all;
use memdir::host::{Clock, FieldValue, FileSystem, FsCapabilities, NoLlm, NoTelemetry};
use memdir::store::{
    IndexOverCap, IndexView, LocalDate, MemoryChanges, Proposal, SaveInput, SaveOutcome,
    SavedMemory, Scope,
};
use memdir::{Code, MemFs, Memdir, MemdirConfig, MemoryType, WriteMode};
use std::rc::Rc;

const T0: f64 = 1_700_000_000_000.0;
const DIR: &str = "/m/";

// ---------- test hosts ----------

/// A `Recorder` that keeps MEMORY.md as it was on disk at the moment of each event.
fn index_recorder(fs: &Rc<MemFs>) -> Recorder {
    let fs = Rc::clone(fs);
    Recorder::with_context(move || {
        fs.snapshot()
            .into_iter()
            .find(|(p, _)| p == "/m/MEMORY.md")
            .map(|(_, d)| String::from_utf8(d).unwrap())
            .unwrap_or_default()
    })
}

type MemStore<'a> = Memdir<Tap<&'a MemFs>, TestClock, NoLlm, NoTelemetry>;

fn mem_store(fs: &MemFs) -> MemStore<'_> {
    Memdir::new(
        Tap::new(fs),
        TestClock::new(T0),
        None,
        NoTelemetry,
        MemdirConfig::new(DIR),
    )
}

fn std_store(tmp: &TempDir) -> Memdir<StdFs, TestClock> {
    Memdir::new(
        StdFs::new(),
        TestClock::new(T0),
        None,
        NoTelemetry,
        MemdirConfig::new(tmp.dir()),
    )
}

fn input(name: &str, description: &str, memory_type: &str, body: &str) -> SaveInput {
    SaveInput {
        name: name.to_owned(),
        description: description.to_owned(),
        memory_type: memory_type.to_owned(),
        body: body.to_owned(),
        ..SaveInput::default()
    }
}

fn saved(outcome: SaveOutcome) -> SavedMemory {
    match outcome {
        SaveOutcome::Saved(s) => s,
        other => panic!("expected Saved, got {other:?}"),
    }
}

fn file_text(fs: &MemFs, path: &str) -> Option<String> {
    fs.snapshot()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, d)| String::from_utf8_lossy(&d).into_owned())
}

fn index_lines(text: &str) -> Vec<memdir::IndexEntry> {
    text.split('\n')
        .filter_map(memdir::parse_index_entry)
        .collect()
}

// ---------- round trips ----------

/// save → scan → list → update → delete, with the index in step, over any filesystem.
fn round_trip<F: FileSystem, C: Clock>(m: &Memdir<F, C>, read: impl Fn(&str) -> Option<String>) {
    let s = saved(
        block_on(m.save(input(
            "Use tabs",
            "The user wants tabs, not spaces",
            "feedback",
            "Always indent with tabs.\n",
        )))
        .unwrap(),
    );
    assert_eq!(s.file, "feedback_use_tabs.md");
    assert_eq!(s.path, format!("{}feedback_use_tabs.md", m.dir()));
    assert!(s.created);
    assert_eq!(s.index_warning, None);
    let text = read("feedback_use_tabs.md").unwrap();
    assert!(text.starts_with("---\n"), "{text}");
    assert!(text.contains("Always indent with tabs."));

    let headers = block_on(m.scan()).unwrap();
    assert_eq!(headers.len(), 1);
    let h = &headers[0];
    assert_eq!(h.filename, "feedback_use_tabs.md");
    assert_eq!(h.name.as_deref(), Some("Use tabs"));
    assert_eq!(
        h.description.as_deref(),
        Some("The user wants tabs, not spaces")
    );
    assert_eq!(h.memory_type, Some(MemoryType::Feedback));
    assert!(h.body_head.contains("Always indent with tabs."));

    let listed = block_on(m.list()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].file, "feedback_use_tabs.md");
    assert_eq!(listed[0].entry.title, "Use tabs");
    assert_eq!(listed[0].entry.hook, "The user wants tabs, not spaces");
    assert_eq!(listed[0].scope, Scope::Private);
    assert!(listed[0].exists);

    let changes = MemoryChanges {
        description: Some("Tabs, width 4".to_owned()),
        body: Some("Tabs; width 4.\n".to_owned()),
        ..MemoryChanges::default()
    };
    let u = saved(block_on(m.update("feedback_use_tabs.md", changes)).unwrap());
    assert!(!u.created);
    let headers = block_on(m.scan()).unwrap();
    assert_eq!(headers[0].description.as_deref(), Some("Tabs, width 4"));
    assert_eq!(headers[0].name.as_deref(), Some("Use tabs"));
    assert!(headers[0].body_head.contains("width 4."));
    let index = read("MEMORY.md").unwrap();
    let entries = index_lines(&index);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].hook, "Tabs, width 4");

    match block_on(m.delete("feedback_use_tabs.md")).unwrap() {
        SaveOutcome::Deleted(d) => {
            assert!(d.removed_file);
            assert!(d.removed_entry);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(read("feedback_use_tabs.md"), None);
    assert!(index_lines(&read("MEMORY.md").unwrap()).is_empty());
    assert!(block_on(m.list()).unwrap().is_empty());
    assert!(block_on(m.scan()).unwrap().is_empty());
    let err = block_on(m.delete("feedback_use_tabs.md")).unwrap_err();
    assert_eq!(err.code, Code::NotFound);
    let err = block_on(m.update("feedback_use_tabs.md", MemoryChanges::default())).unwrap_err();
    assert_eq!(err.code, Code::NotFound);
}

#[test]
fn round_trip_over_memfs() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    round_trip(&m, |rel| file_text(&fs, &format!("/m/{rel}")));
    // Atomic writes leave no temp files, and the lock file is gone.
    let paths: Vec<String> = fs.snapshot().into_iter().map(|(p, _)| p).collect();
    assert!(paths.iter().all(|p| !p.contains(".tmp-")), "{paths:?}");
    assert!(
        !paths.iter().any(|p| p.ends_with(".memdir.lock")),
        "{paths:?}"
    );
}

#[test]
fn round_trip_over_real_dir() {
    let tmp = TempDir::new("roundtrip");
    let m = std_store(&tmp);
    round_trip(&m, |rel| std::fs::read_to_string(tmp.join(rel)).ok());
    let names: Vec<String> = std::fs::read_dir(&tmp.path)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["MEMORY.md".to_owned()]);
}

#[test]
fn round_trip_over_minimal_real_fs() {
    // No rename, realpath, lock file, readHead: plain writes, whole-file reads.
    let tmp = TempDir::new("minimal");
    let m = Memdir::<_, _>::new(
        StdFs::minimal(),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new(tmp.dir()),
    );
    round_trip(&m, |rel| std::fs::read_to_string(tmp.join(rel)).ok());
}

#[test]
fn saving_a_name_that_exists_is_already_exists_and_replace_updates_it() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let a = saved(block_on(m.save(input("Deploy", "first", "project", "a"))).unwrap());
    assert_eq!(a.file, "project_deploy.md");
    assert!(a.created);
    let before_file = file_text(&fs, "/m/project_deploy.md").unwrap();
    let before_index = file_text(&fs, "/m/MEMORY.md").unwrap();
    // The same name again, and another name with the same slug: refused, nothing written.
    for (name, body) in [("Deploy", "b"), ("deploy!", "c")] {
        let err = block_on(m.save(input(name, "second", "project", body))).unwrap_err();
        assert_eq!(err.code, Code::AlreadyExists, "{name}");
        assert!(err.message.contains("project_deploy.md"), "{}", err.message);
        assert!(err.message.contains("replace"), "{}", err.message);
    }
    assert_eq!(file_text(&fs, "/m/project_deploy.md").unwrap(), before_file);
    assert_eq!(file_text(&fs, "/m/MEMORY.md").unwrap(), before_index);
    assert!(
        file_text(&fs, "/m/project_deploy-2.md").is_none(),
        "no silent duplicate"
    );

    // replace: the same file and the same index entry, updated in place.
    let mut again = input("Deploy", "replaced", "project", "z");
    again.replace = true;
    let r = saved(block_on(m.save(again.clone())).unwrap());
    assert_eq!(r.file, "project_deploy.md");
    assert!(!r.created);
    let entries = index_lines(&file_text(&fs, "/m/MEMORY.md").unwrap());
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].hook, "replaced");
    assert!(file_text(&fs, "/m/project_deploy.md")
        .unwrap()
        .contains("\nz"));
    // Idempotent: a host saving the same memory at every start keeps one file and one line.
    for _ in 0..3 {
        saved(block_on(m.save(again.clone())).unwrap());
    }
    assert_eq!(
        index_lines(&file_text(&fs, "/m/MEMORY.md").unwrap()).len(),
        1
    );

    // A given file that exists is refused unless replace.
    saved(block_on(m.save(input("Other", "d", "user", "second"))).unwrap());
    let mut named = input("Third", "d", "user", "x");
    named.file = Some("user_other.md".to_owned());
    let err = block_on(m.save(named.clone())).unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    assert!(file_text(&fs, "/m/user_other.md")
        .unwrap()
        .contains("second"));
    named.replace = true;
    let r = saved(block_on(m.save(named)).unwrap());
    assert_eq!(r.file, "user_other.md");

    // Team memory follows the same rule.
    let mut team = input("Release freeze", "d", "project", "t");
    team.scope = Scope::Team;
    saved(block_on(m.save(team.clone())).unwrap());
    let err = block_on(m.save(team)).unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    assert!(err.message.contains("team memory"), "{}", err.message);
}

#[test]
fn hostile_names_are_refused_and_nothing_is_written() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let cases = [
        ("../escape.md", Code::PathEscapes),
        ("a/../../escape.md", Code::PathEscapes),
        ("/etc/passwd.md", Code::PathAbsolute),
        ("a\\b.md", Code::PathBackslash),
        ("a\0.md", Code::PathNullByte),
        ("MEMORY.md", Code::InvalidMemory),
        ("sub/MEMORY.md", Code::InvalidMemory),
        ("notes.txt", Code::InvalidMemory),
        ("team/x.md", Code::InvalidMemory),
    ];
    for (file, code) in cases {
        let mut i = input("N", "d", "user", "b");
        i.file = Some(file.to_owned());
        assert_eq!(block_on(m.save(i)).unwrap_err().code, code, "{file:?}");
        assert_eq!(
            block_on(m.delete(file)).unwrap_err().code,
            if file == "team/x.md" {
                Code::NotFound
            } else {
                code
            },
            "{file:?}"
        );
    }
    // Names from an LLM never escape: the slug keeps ASCII letters and digits only.
    let s = saved(block_on(m.save(input("../../etc/passwd", "d", "user", "b"))).unwrap());
    assert_eq!(s.file, "user_etc_passwd.md");
    // Bad fields.
    for bad in [
        input("", "d", "user", ""),
        input("n", "two\nlines", "user", ""),
        input("n", "", "user", ""),
        input("n", "d", "User", ""),
        input("n\r", "d", "user", ""),
    ] {
        assert_eq!(block_on(m.save(bad)).unwrap_err().code, Code::InvalidMemory);
    }
    let paths: Vec<String> = fs.snapshot().into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["/m/MEMORY.md", "/m/user_etc_passwd.md"]);
}

#[test]
fn symlink_escape_is_refused() {
    let fs = MemFs::new();
    fs.insert_file("/elsewhere/keep.txt", "x");
    fs.symlink("/elsewhere", "/m/out");
    fs.symlink("/elsewhere/target.md", "/m/link.md");
    let m = mem_store(&fs);
    let mut i = input("N", "d", "user", "b");
    i.file = Some("out/x.md".to_owned());
    assert_eq!(
        block_on(m.save(i)).unwrap_err().code,
        Code::PathSymlinkEscape
    );
    let mut i = input("N", "d", "user", "b");
    i.file = Some("link.md".to_owned());
    i.replace = true;
    let err = block_on(m.save(i)).unwrap_err();
    assert!(
        matches!(
            err.code,
            Code::PathSymlinkEscape | Code::PathDanglingSymlink
        ),
        "{err:?}"
    );
    let paths: Vec<String> = fs.snapshot().into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["/elsewhere/keep.txt"]);
}

#[test]
fn symlink_escape_is_refused_on_real_dir() {
    let tmp = TempDir::new("escape");
    let outside = TempDir::new("outside");
    tmp.symlink(&outside.path, "out");
    let m = std_store(&tmp);
    let mut i = input("N", "d", "user", "b");
    i.file = Some("out/x.md".to_owned());
    assert_eq!(
        block_on(m.save(i)).unwrap_err().code,
        Code::PathSymlinkEscape
    );
    assert!(std::fs::read_dir(&outside.path).unwrap().next().is_none());
}

#[test]
fn team_scope_has_its_own_index() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let mut i = input("API owners", "Who owns which API", "reference", "see wiki");
    i.scope = Scope::Team;
    let s = saved(block_on(m.save(i)).unwrap());
    assert_eq!(s.file, "team/reference_api_owners.md");
    assert_eq!(s.path, "/m/team/reference_api_owners.md");
    assert_eq!(s.scope, Scope::Team);
    let team_index = file_text(&fs, "/m/team/MEMORY.md").unwrap();
    assert_eq!(index_lines(&team_index)[0].file, "reference_api_owners.md");
    assert_eq!(file_text(&fs, "/m/MEMORY.md"), None);
    block_on(m.save(input("Me", "who I am", "user", ""))).unwrap();

    let headers = block_on(m.scan()).unwrap();
    let mut names: Vec<&str> = headers.iter().map(|h| h.filename.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["team/reference_api_owners.md", "user_me.md"]);
    let listed = block_on(m.list()).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[1].scope, Scope::Team);
    assert_eq!(listed[1].file, "team/reference_api_owners.md");
    assert!(listed[1].exists);

    let view = block_on(m.read_index_of(Scope::Team)).unwrap();
    assert!(view.content.contains("(reference_api_owners.md)"));
    let d = block_on(m.delete("team/reference_api_owners.md")).unwrap();
    assert!(matches!(d, SaveOutcome::Deleted(ref x) if x.removed_file && x.removed_entry));
    assert!(index_lines(&file_text(&fs, "/m/team/MEMORY.md").unwrap()).is_empty());
}

// ---------- write modes ----------

#[test]
fn write_modes() {
    for mode in [WriteMode::Off, WriteMode::ReadOnly] {
        let fs = MemFs::new();
        let mut config = MemdirConfig::new(DIR);
        config.write_mode = mode;
        let m = Memdir::<_, _>::new(
            Tap::new(&fs),
            TestClock::new(T0),
            None::<NoLlm>,
            NoTelemetry,
            config,
        );
        let err = block_on(m.save(input("n", "d", "user", ""))).unwrap_err();
        assert_eq!(err.code, Code::WriteForbidden);
        assert_eq!(
            block_on(m.delete("x.md")).unwrap_err().code,
            Code::WriteForbidden
        );
        let date = LocalDate {
            year: 2026,
            month: 1,
            day: 2,
        };
        assert_eq!(
            block_on(m.append_log("x", date)).unwrap_err().code,
            Code::WriteForbidden
        );
        assert!(fs.snapshot().is_empty());
    }
    let fs = MemFs::new();
    let mut config = MemdirConfig::new(DIR);
    config.write_mode = WriteMode::Confirm;
    let m = Memdir::<_, _>::new(
        Tap::new(&fs),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        config,
    );
    let proposal = match block_on(m.save(input("n", "d", "user", "b"))).unwrap() {
        SaveOutcome::Proposed(p) => p,
        other => panic!("{other:?}"),
    };
    assert!(matches!(&proposal, Proposal::Save(i) if i.name == "n"));
    assert!(fs.snapshot().is_empty());
    // Invalid input is refused even in confirm mode, before any proposal.
    let err = block_on(m.save(input("n", "d", "nope", "b"))).unwrap_err();
    assert_eq!(err.code, Code::InvalidMemory);
    let s = saved(block_on(m.apply_proposal(proposal)).unwrap());
    assert_eq!(s.file, "user_n.md");
    let del = block_on(m.delete("user_n.md")).unwrap();
    assert!(
        matches!(&del, SaveOutcome::Proposed(Proposal::Delete { file }) if file == "user_n.md")
    );
    assert!(file_text(&fs, "/m/user_n.md").is_some());
    block_on(m.apply_proposal(match del {
        SaveOutcome::Proposed(p) => p,
        _ => unreachable!(),
    }))
    .unwrap();
    assert!(file_text(&fs, "/m/user_n.md").is_none());
}

// ---------- concurrency and locks ----------

#[test]
fn interleaved_saves_on_one_memdir_both_land() {
    let fs = MemFs::new();
    let m = Memdir::<_, _>::new(
        Tap::yielding(&fs),
        TestClock::yielding(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new(DIR),
    );
    let outs = block_on(join_all(vec![
        m.save(input("Alpha", "a", "user", "")),
        m.save(input("Beta", "b", "user", "")),
    ]));
    assert!(outs.iter().all(Result::is_ok), "{outs:?}");
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    let files: Vec<String> = index_lines(&index).into_iter().map(|e| e.file).collect();
    assert_eq!(files.len(), 2, "{index}");
    assert!(files.contains(&"user_alpha.md".to_owned()));
    assert!(files.contains(&"user_beta.md".to_owned()));
}

#[test]
fn two_instances_sharing_a_dir_lose_nothing() {
    // Two Memdirs over one filesystem stand for two processes: only the lock file serialises
    // them. Every host call yields, so their read-modify-writes interleave.
    let fs = MemFs::new();
    let make = || {
        let mut config = MemdirConfig::new(DIR);
        // Fake time runs fast while every call yields; this test is about losing nothing.
        config.store.lock_timeout_ms = 600_000;
        config.store.lock_stale_ms = 600_000;
        Memdir::<_, _>::new(
            Tap::yielding(&fs),
            TestClock::yielding(T0),
            None::<NoLlm>,
            NoTelemetry,
            config,
        )
    };
    let (a, b) = (make(), make());
    let mut futures = Vec::new();
    for i in 0..6 {
        let who = if i % 2 == 0 { &a } else { &b };
        futures.push(who.save(input(
            &format!("Same name {}", i / 2),
            &format!("#{i}"),
            "project",
            "",
        )));
    }
    let outs = block_on(join_all(futures));
    // Each name is saved by both: one save wins, the other is told ALREADY_EXISTS (no silent
    // `-2` copy, no lost write), and the index holds exactly the winners.
    let mut winners = Vec::new();
    for (pair, outs) in outs.chunks(2).enumerate() {
        let ok: Vec<usize> = (0..2).filter(|&k| outs[k].is_ok()).collect();
        assert_eq!(ok.len(), 1, "{outs:?}");
        let loser = &outs[1 - ok[0]];
        assert_eq!(loser.as_ref().unwrap_err().code, Code::AlreadyExists);
        winners.push(format!("#{}", pair * 2 + ok[0]));
    }
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    let mut hooks: Vec<String> = index_lines(&index).into_iter().map(|e| e.hook).collect();
    hooks.sort();
    assert_eq!(hooks, winners);
    let mut files: Vec<String> = index_lines(&index).into_iter().map(|e| e.file).collect();
    files.dedup();
    assert_eq!(files.len(), 3);
    assert!(file_text(&fs, "/m/.memdir.lock").is_none());
}

#[test]
fn interleaved_saves_over_real_dir() {
    let tmp = TempDir::new("interleave");
    let m = std_store(&tmp);
    let outs = block_on(join_all(vec![
        m.save(input("Alpha", "a", "user", "")),
        m.save(input("Beta", "b", "user", "")),
    ]));
    assert!(outs.iter().all(Result::is_ok));
    let files: Vec<String> = index_lines(&tmp.read("MEMORY.md"))
        .into_iter()
        .map(|e| e.file)
        .collect();
    assert_eq!(files, ["user_alpha.md", "user_beta.md"]);
}

#[test]
fn threads_writing_one_real_dir_lose_nothing() {
    let tmp = TempDir::new("threads");
    let dir = tmp.dir();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let m = Memdir::<_, _>::new(
                    StdFs::new(),
                    RealClock,
                    None::<NoLlm>,
                    NoTelemetry,
                    MemdirConfig::new(dir),
                );
                for i in 0..5 {
                    block_on(m.save(input(
                        &format!("t{t} m{i}"),
                        &format!("{t}-{i}"),
                        "project",
                        "",
                    )))
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let entries = index_lines(&tmp.read("MEMORY.md"));
    assert_eq!(entries.len(), 20);
    assert!(!tmp.exists(".memdir.lock"));
}

#[test]
fn stale_lock_is_broken_and_fresh_lock_times_out() {
    // Stale: acquired 31 s ago by a holder that died.
    let fs = MemFs::new();
    fs.insert_file("/m/.memdir.lock", format!("dead\n{}", T0 - 31_000.0));
    let m = mem_store(&fs);
    block_on(m.save(input("A", "a", "user", ""))).unwrap();
    assert!(file_text(&fs, "/m/.memdir.lock").is_none());
    assert_eq!(m_clock(&m), T0);

    // Fresh and never released: LOCK_TIMEOUT after the configured 10 s, nothing written.
    let fs = MemFs::new();
    fs.insert_file("/m/.memdir.lock", format!("alive\n{}", T0 - 1_000.0));
    let mut config = MemdirConfig::new(DIR);
    config.store.lock_stale_ms = 60_000;
    let m = Memdir::<_, _>::new(
        Tap::new(&fs),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        config,
    );
    let err = block_on(m.save(input("A", "a", "user", ""))).unwrap_err();
    assert_eq!(err.code, Code::LockTimeout);
    let waited = m_clock(&m) - T0;
    assert!((10_000.0..10_400.0).contains(&waited), "{waited}");
    assert!(file_text(&fs, "/m/user_a.md").is_none());
    assert_eq!(
        file_text(&fs, "/m/.memdir.lock").unwrap(),
        format!("alive\n{}", T0 - 1_000.0)
    );

    // Goes stale while we wait: acquired 25 s ago, stale after 30 s → broken after ~5 s.
    let fs = MemFs::new();
    fs.insert_file("/m/.memdir.lock", format!("slow\n{}", T0 - 25_000.0));
    let m = mem_store(&fs);
    block_on(m.save(input("A", "a", "user", ""))).unwrap();
    let waited = m_clock(&m) - T0;
    assert!((5_000.0..5_400.0).contains(&waited), "{waited}");
    assert!(file_text(&fs, "/m/user_a.md").is_some());
}

fn m_clock<F: FileSystem>(m: &Memdir<F, TestClock>) -> f64 {
    m.clock().now.get()
}

#[test]
fn lock_file_with_garbage_uses_its_mtime() {
    let fs = MemFs::new();
    fs.set_time(T0 - 40_000.0);
    fs.insert_file("/m/.memdir.lock", "");
    let m = mem_store(&fs);
    block_on(m.save(input("A", "a", "user", ""))).unwrap();
    assert_eq!(m_clock(&m), T0);
}

// ---------- cap reporting ----------

#[test]
fn over_cap_index_is_written_whole_and_reported_before_the_write() {
    let fs = Rc::new(MemFs::new());
    let mut config = MemdirConfig::new(DIR);
    config.store.index_caps.max_lines = 3;
    config.store.index_over_cap = IndexOverCap::Warn;
    let rec = index_recorder(&fs);
    let m = Memdir::new(
        Tap::new(&*fs),
        TestClock::new(T0),
        None::<NoLlm>,
        rec,
        config,
    );
    for n in ["One", "Two", "Three"] {
        let s = saved(block_on(m.save(input(n, "d", "user", ""))).unwrap());
        assert_eq!(s.index_warning, None);
    }
    let s = saved(block_on(m.save(input("Four", "d", "user", ""))).unwrap());
    let w = s.index_warning.expect("warning");
    assert_eq!(w.line_count, 4);
    assert!(w.was_line_truncated);
    assert!(!w.was_byte_truncated);
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    assert_eq!(index_lines(&index).len(), 4, "nothing is cut on disk");

    let events = m.telemetry().events();
    assert_eq!(events.len(), 1);
    let (name, fields) = &events[0];
    let index_at_emit = &m.telemetry().contexts.borrow()[0];
    assert_eq!(name, "memdir_index_over_cap");
    assert!(fields.contains(&("line_count".to_owned(), FieldValue::Num(4.0))));
    assert!(fields.contains(&("was_line_truncated".to_owned(), FieldValue::Bool(true))));
    assert_eq!(
        index_lines(index_at_emit).len(),
        3,
        "emitted before the write"
    );

    // The index as the model gets it is cut to 3 lines plus the warning.
    let view = block_on(m.read_index()).unwrap();
    assert!(view.was_line_truncated);
    assert_eq!(view.line_count, 4);
    assert!(view.content.contains("WARNING"), "{}", view.content);
    assert!(!view.content.contains("(user_four.md)"));
}

#[test]
fn byte_cap_warning() {
    let fs = MemFs::new();
    let mut config = MemdirConfig::new(DIR);
    config.store.index_caps.max_units = 60;
    config.store.index_over_cap = IndexOverCap::Warn;
    let m = Memdir::<_, _>::new(
        Tap::new(&fs),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        config,
    );
    let long = "x".repeat(80);
    let s = saved(block_on(m.save(input("Long", &long, "user", ""))).unwrap());
    let w = s.index_warning.unwrap();
    assert!(w.was_byte_truncated);
    assert!(!w.was_line_truncated);
    assert!(w.byte_count > 80);
}

/// Since reference 2.1.210 a write that leaves MEMORY.md over its caps is an error: nothing is
/// written. Since 2.1.211 the caps count only what the model loads.
#[test]
fn a_write_that_leaves_the_index_over_its_caps_is_refused_by_default() {
    let fs = MemFs::new();
    let mut config = MemdirConfig::new(DIR);
    config.store.index_caps.max_lines = 3;
    let m = Memdir::new(
        Tap::new(&fs),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        config.clone(),
    );
    for n in ["One", "Two", "Three"] {
        saved(block_on(m.save(input(n, "d", "user", ""))).unwrap());
    }
    let before = fs.snapshot();
    let err = block_on(m.save(input("Four", "d", "user", "body"))).unwrap_err();
    assert_eq!(err.code, Code::IndexOverCap);
    assert!(err.message.contains("4 lines"), "{}", err.message);
    assert!(err.message.contains("3 lines"), "{}", err.message);
    assert_eq!(fs.snapshot(), before, "nothing written");
    // Updating an entry in place (same length) still works at the cap; deleting always does.
    let s = saved(
        block_on(m.update(
            "user_two.md",
            MemoryChanges {
                description: Some("e".into()),
                ..MemoryChanges::default()
            },
        ))
        .unwrap(),
    );
    assert_eq!(s.index_warning, None);
    block_on(m.delete("user_one.md")).unwrap();
    saved(block_on(m.save(input("Four", "d", "user", ""))).unwrap());

    // Frontmatter and HTML comments in MEMORY.md do not count: a hand-kept header and notes
    // leave room for the three entries.
    let fs = MemFs::new();
    fs.insert_file(
        "/m/MEMORY.md",
        "---\ntitle: index\n---\n<!-- kept by hand:\nline\nline -->\n",
    );
    let m = Memdir::new(
        Tap::new(&fs),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        config,
    );
    for n in ["One", "Two", "Three"] {
        let s = saved(block_on(m.save(input(n, "d", "user", ""))).unwrap());
        assert_eq!(s.index_warning, None, "{n}");
    }
    assert_eq!(
        block_on(m.save(input("Four", "d", "user", "")))
            .unwrap_err()
            .code,
        Code::IndexOverCap
    );
}

// ---------- read_index ----------

#[test]
fn read_index_as_the_model_gets_it() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let view: IndexView = block_on(m.read_index()).unwrap();
    assert!(!view.exists);
    assert_eq!(view.content, "");
    assert_eq!(view.path, "/m/MEMORY.md");

    fs.insert_file(
        "/m/MEMORY.md",
        "---\ntitle: idx\n---\n<!-- hand-kept -->\n- [A](a.md) — hook\n\n",
    );
    let view = block_on(m.read_index()).unwrap();
    assert!(view.exists);
    assert_eq!(view.content, "- [A](a.md) — hook");
    assert_eq!(view.line_count, 1);
    assert_eq!(view.byte_count, "- [A](a.md) — hook".encode_utf16().count());
    assert!(!view.was_line_truncated && !view.was_byte_truncated);

    // A directory in its place reads as absent.
    let fs = MemFs::new();
    fs.insert_file("/m/MEMORY.md/inner.md", "x");
    let m = mem_store(&fs);
    assert!(!block_on(m.read_index()).unwrap().exists);
}

#[test]
fn read_index_missing_dir_and_250_lines() {
    let tmp = TempDir::new("idx");
    let m = Memdir::<_, _>::new(
        StdFs::new(),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new(format!("{}does/not/exist", tmp.dir())),
    );
    let view = block_on(m.read_index()).unwrap();
    assert!(!view.exists);
    assert!(block_on(m.scan()).unwrap().is_empty());
    assert!(block_on(m.list()).unwrap().is_empty());
    assert_eq!(block_on(m.manifest()).unwrap(), "");

    let lines: String = (0..250)
        .map(|i| format!("- [M{i}](m{i}.md) — h\n"))
        .collect();
    tmp.write("MEMORY.md", lines);
    let m = std_store(&tmp);
    let view = block_on(m.read_index()).unwrap();
    assert_eq!(view.line_count, 250);
    assert!(view.was_line_truncated);
    assert!(
        view.content.contains("250 lines (limit: 200)"),
        "{}",
        view.content
    );
}

// ---------- scan ----------

fn memory(description: &str, memory_type: &str) -> String {
    format!("---\nname: n\ndescription: {description}\ntype: {memory_type}\n---\nbody\n")
}

#[test]
fn scan_selects_sorts_and_caps() {
    let fs = MemFs::new();
    fs.insert_file("/m/MEMORY.md", "- [a](a.md) — x\n");
    fs.insert_file("/m/a.md", memory("alpha", "user"));
    fs.insert_file("/m/.hidden.md", memory("hidden", "feedback"));
    fs.insert_file("/m/upper.MD", memory("upper", "user"));
    fs.insert_file("/m/notes.txt", memory("txt", "user"));
    fs.insert_file("/m/sub/MEMORY.md", memory("sub index", "user"));
    fs.insert_file("/m/sub/deep/b.md", memory("deep", "project"));
    fs.insert_file("/m/logs/2026/03/2026-03-05.md", "log line\n");
    fs.insert_file("/m/sub/logs/kept.md", memory("nested logs dir", "user"));
    fs.insert_file("/m/team/t.md", memory("team", "reference"));
    fs.set_mtime("/m/sub/logs/kept.md", T0 + 50.0);
    fs.set_mtime("/m/a.md", T0 + 500.0);
    fs.set_mtime("/m/.hidden.md", T0 + 100.0);
    fs.set_mtime("/m/sub/deep/b.md", T0 + 300.0);
    fs.set_mtime("/m/logs/2026/03/2026-03-05.md", T0 + 200.0);
    fs.set_mtime("/m/team/t.md", T0 + 300.0);
    let m = mem_store(&fs);
    let headers = block_on(m.scan()).unwrap();
    let names: Vec<&str> = headers.iter().map(|h| h.filename.as_str()).collect();
    // Newest first; the two at T0+300 keep walk order (breadth-first, names sorted by MemFs).
    // The daily log (top-level `logs/`) is not a memory; a `logs/` deeper down is just a folder.
    assert_eq!(
        names,
        [
            "a.md",
            "team/t.md",
            "sub/deep/b.md",
            ".hidden.md",
            "sub/logs/kept.md"
        ]
    );
    assert_eq!(headers[0].file_path, "/m/a.md");
    assert_eq!(headers[0].mtime_ms, T0 + 500.0);
    assert_eq!(headers[3].memory_type, Some(MemoryType::Feedback));
    let manifest = block_on(m.manifest()).unwrap();
    assert_eq!(manifest.split('\n').count(), 5);
    assert!(
        manifest
            .split('\n')
            .next()
            .unwrap()
            .starts_with("- [user] a.md ("),
        "{manifest}"
    );

    // Any case of `logs/` (one folder on a case-insensitive disk); recall's listing agrees.
    let fs = MemFs::new();
    fs.insert_file("/m/Logs/2026/03/2026-03-05.md", memory("log", "user"));
    fs.insert_file("/m/b.md", memory("b", "user"));
    let m = mem_store(&fs);
    let names: Vec<String> = block_on(m.scan())
        .unwrap()
        .into_iter()
        .map(|h| h.filename)
        .collect();
    assert_eq!(names, ["b.md"]);
    let listed: Vec<String> = block_on(m.store().list_memory_files())
        .files
        .into_iter()
        .map(|f| f.rel)
        .collect();
    assert_eq!(listed, ["b.md"]);

    let fs = MemFs::new();
    for i in 0..205 {
        fs.insert_file(&format!("/m/f{i:03}.md"), memory(&format!("d{i}"), "user"));
    }
    let headers = block_on(mem_store(&fs).scan()).unwrap();
    assert_eq!(headers.len(), 200);
    assert_eq!(headers[0].filename, "f204.md");
    assert_eq!(headers[199].filename, "f005.md");
}

#[test]
fn scan_reads_thirty_lines_with_bom_and_crlf() {
    let fs = MemFs::new();
    fs.insert_file(
        "/m/crlf.md",
        "\u{feff}---\r\ndescription: with crlf\r\ntype: project\r\n---\r\nbody\r\n",
    );
    // Frontmatter closing on line 31 is beyond the 30 lines read.
    let late = format!("---\n{}description: late\n---\n", "x: 1\n".repeat(28));
    fs.insert_file("/m/late.md", late);
    let early = format!("---\n{}description: early\n---\n", "x: 1\n".repeat(27));
    fs.insert_file("/m/early.md", early);
    let headers = block_on(mem_store(&fs).scan()).unwrap();
    let by = |n: &str| headers.iter().find(|h| h.filename == n).unwrap().clone();
    assert_eq!(by("crlf.md").description.as_deref(), Some("with crlf"));
    assert_eq!(by("crlf.md").memory_type, Some(MemoryType::Project));
    assert_eq!(by("late.md").description, None);
    assert_eq!(by("early.md").description.as_deref(), Some("early"));
}

#[test]
fn scan_bad_input_over_memfs() {
    let fs = MemFs::new();
    fs.insert_file("/m/dir.md/inner.md", memory("inner", "user"));
    fs.insert_file(
        "/m/binary.md",
        [0u8, 159, 146, 150, 0xff, 0xfe, b'\n', 7, 0],
    );
    fs.insert_file(
        "/m/bad-utf8.md",
        b"---\ndescription: caf\xe9\ntype: user\n---\n",
    );
    fs.symlink("/m", "/m/loop");
    fs.symlink("../sub", "/m/sub/again");
    fs.insert_file("/m/sub/s.md", memory("s", "user"));
    fs.symlink("/m/self.md", "/m/self.md");
    fs.symlink("/nowhere.md", "/m/dangling.md");
    fs.insert_file("/elsewhere/linked.md", memory("linked", "user"));
    fs.symlink("/elsewhere/linked.md", "/m/linked.md");
    let m = mem_store(&fs);
    let headers = block_on(m.scan()).unwrap();
    let mut names: Vec<&str> = headers.iter().map(|h| h.filename.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "bad-utf8.md",
            "binary.md",
            "dir.md/inner.md",
            // linked.md leads outside the directory: not read (issue #19 item 4).
            "sub/s.md"
        ]
    );
    let bad = headers
        .iter()
        .find(|h| h.filename == "bad-utf8.md")
        .unwrap();
    assert_eq!(bad.description.as_deref(), Some("caf\u{fffd}"));
    assert_eq!(bad.memory_type, Some(MemoryType::User));
    let bin = headers.iter().find(|h| h.filename == "binary.md").unwrap();
    assert_eq!(bin.description, None);

    // Without realpath the depth cap still ends the loop.
    let caps = FsCapabilities {
        realpath: false,
        read_head: false,
        ..fs.capabilities()
    };
    let m = Memdir::<_, _>::new(
        Tap::with_caps(&fs, caps),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new(DIR),
    );
    let headers = block_on(m.scan()).unwrap();
    assert!(headers.iter().any(|h| h.filename == "sub/s.md"));
    assert!(headers.iter().any(|h| h.filename == "loop/sub/s.md"));
    assert!(headers.len() <= 200);
}

#[test]
fn scan_bad_input_over_real_dir() {
    let tmp = TempDir::new("bad");
    tmp.write("ok.md", memory("ok", "user"));
    std::fs::create_dir_all(tmp.join("dir.md")).unwrap();
    tmp.write("binary.md", [0u8, 0xff, 0xfe, 0xc3, b'\n', 0]);
    tmp.write("sub/s.md", memory("s", "project"));
    tmp.symlink(&tmp.path, "loop");
    tmp.symlink("../sub", "sub/again");
    tmp.symlink("self.md", "self.md");
    tmp.symlink("missing.md", "dangling.md");
    // 20 MB: only its head is read.
    let mut big = memory("big", "reference").into_bytes();
    big.resize(20 * 1024 * 1024, b'x');
    tmp.write("big.md", &big);
    let fs = StdFs::new();
    let m = Memdir::<_, _>::new(
        fs,
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new(tmp.dir()),
    );
    let headers = block_on(m.scan()).unwrap();
    let mut names: Vec<&str> = headers.iter().map(|h| h.filename.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["big.md", "binary.md", "ok.md", "sub/s.md"]);
    let big = headers.iter().find(|h| h.filename == "big.md").unwrap();
    assert_eq!(big.description.as_deref(), Some("big"));
    let read = m.fs().bytes_read.get();
    assert!(read < 2 * 1024 * 1024, "read {read} bytes");
}

// ---------- daily log ----------

#[test]
fn append_log_creates_and_appends() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let date = LocalDate {
        year: 2026,
        month: 3,
        day: 5,
    };
    let path = block_on(m.append_log("first", date)).unwrap();
    assert_eq!(path, "/m/logs/2026/03/2026-03-05.md");
    block_on(m.append_log("second\n", date)).unwrap();
    assert_eq!(file_text(&fs, &path).unwrap(), "first\nsecond\n");
    let bad = LocalDate {
        year: 2026,
        month: 0,
        day: 5,
    };
    let err = block_on(m.append_log("x", bad)).unwrap_err();
    assert_eq!(err.code, Code::InvalidInput);
    assert_eq!(err.message, format!("not a calendar date: {bad:?}"));

    // Without appendFile: read + write under the lock.
    let fs = MemFs::new();
    let caps = FsCapabilities {
        append_file: false,
        ..fs.capabilities()
    };
    let m = Memdir::<_, _>::new(
        Tap::with_caps(&fs, caps),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new(DIR),
    );
    block_on(m.append_log("a", date)).unwrap();
    block_on(m.append_log("b", date)).unwrap();
    assert_eq!(
        file_text(&fs, "/m/logs/2026/03/2026-03-05.md").unwrap(),
        "a\nb\n"
    );
    assert!(file_text(&fs, "/m/.memdir.lock").is_none());

    let tmp = TempDir::new("log");
    let m = std_store(&tmp);
    let date = LocalDate {
        year: 999,
        month: 12,
        day: 31,
    };
    block_on(m.append_log("x", date)).unwrap();
    block_on(m.append_log("y", date)).unwrap();
    assert_eq!(tmp.read("logs/0999/12/0999-12-31.md"), "x\ny\n");
}

#[test]
fn update_rejects_missing_fields_and_keeps_body() {
    let fs = MemFs::new();
    fs.insert_file("/m/plain.md", "no frontmatter here\n");
    let m = mem_store(&fs);
    let err = block_on(m.update(
        "plain.md",
        MemoryChanges {
            description: Some("d".to_owned()),
            ..MemoryChanges::default()
        },
    ))
    .unwrap_err();
    assert_eq!(err.code, Code::InvalidMemory);
    let s = saved(
        block_on(m.update(
            "plain.md",
            MemoryChanges {
                name: Some("Plain".to_owned()),
                description: Some("now indexed".to_owned()),
                memory_type: Some("reference".to_owned()),
                ..MemoryChanges::default()
            },
        ))
        .unwrap(),
    );
    assert_eq!(s.file, "plain.md");
    let headers = block_on(m.scan()).unwrap();
    assert_eq!(headers[0].memory_type, Some(MemoryType::Reference));
    assert!(headers[0].body_head.contains("no frontmatter here"));
    let listed = block_on(m.list()).unwrap();
    assert_eq!(listed[0].entry.title, "Plain");
}

#[test]
fn list_marks_missing_and_hostile_entries() {
    let fs = MemFs::new();
    fs.insert_file("/secret.md", "s");
    fs.insert_file(
        "/m/MEMORY.md",
        "- [Gone](gone.md) — x\n- [Up](../secret.md) — y\nplain text\n- [Here](here.md) — z\n",
    );
    fs.insert_file("/m/here.md", memory("here", "user"));
    let listed = block_on(mem_store(&fs).list()).unwrap();
    let summary: Vec<(&str, bool)> = listed.iter().map(|l| (l.file.as_str(), l.exists)).collect();
    assert_eq!(
        summary,
        [
            ("gone.md", false),
            ("../secret.md", false),
            ("here.md", true)
        ]
    );
}

#[test]
fn host_lock_is_used_when_offered() {
    let fs = MemFs::new();
    let mut host = Tap::new(&fs);
    host.host_lock = Some(false);
    let released = Rc::clone(&host.locks_released);
    let m = Memdir::<_, _>::new(
        host,
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        MemdirConfig::new(DIR),
    );
    block_on(m.save(input("A", "a", "user", ""))).unwrap();
    block_on(m.delete("user_a.md")).unwrap();
    assert_eq!(*m.fs().locks_taken.borrow(), ["memdir:/m/", "memdir:/m/"]);
    assert_eq!(released.get(), 2);
    let paths: Vec<String> = fs.snapshot().into_iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["/m/MEMORY.md"], "no lock file with a host lock");
}

#[test]
fn a_write_killed_between_file_and_index_is_repaired_by_the_next_write() {
    let fs = MemFs::new();
    // What a writer killed after writing its memory file but before the index leaves behind.
    fs.insert_file("/m/MEMORY.md", "- [Old](user_old.md) — kept\n");
    fs.insert_file(
        "/m/user_old.md",
        "---\nname: Old\ndescription: kept\ntype: user\n---\n\nold\n",
    );
    fs.insert_file(
        "/m/user_orphan.md",
        "---\nname: Orphan\ndescription: half saved\ntype: user\n---\n\nx\n",
    );
    fs.insert_file("/m/.memdir-journal", "private user_orphan.md\n");
    // And a delete killed after removing the file but before the index.
    let m = mem_store(&fs);
    block_on(m.save(input("Next", "the next write", "project", "b"))).unwrap();
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    let files: Vec<String> = index_lines(&index).into_iter().map(|e| e.file).collect();
    assert!(files.contains(&"user_orphan.md".to_owned()), "{index}");
    assert!(files.contains(&"user_old.md".to_owned()));
    assert_eq!(
        file_text(&fs, "/m/.memdir-journal"),
        None,
        "journal cleared"
    );

    fs.insert_file("/m/.memdir-journal", "private user_old.md\n");
    block_on(fs.remove("/m/user_old.md")).unwrap();
    block_on(m.save(input("Another", "one more", "project", "b"))).unwrap();
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    assert!(
        !index.contains("user_old.md"),
        "dangling entry removed: {index}"
    );
    assert!(index.contains("user_orphan.md"));
}

#[test]
fn the_secret_guard_refuses_team_writes_and_names_rules_not_secrets() {
    let fs = MemFs::new();
    let secret = format!("ghp_{}", "A1b2C3d4".repeat(4) + "E5f6");
    let mut team = input(
        "Deploy token",
        "how we deploy",
        "reference",
        &format!("token: {secret}\n"),
    );
    team.scope = Scope::Team;
    let m = mem_store(&fs);
    let err = block_on(m.save(team.clone())).unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);
    assert!(err.message.contains("GitHub PAT"), "{}", err.message);
    assert!(!err.message.contains(&secret));
    assert!(
        fs.snapshot()
            .iter()
            .all(|(_, d)| !String::from_utf8_lossy(d).contains(&secret)),
        "nothing written"
    );

    // Private memory is checked too by default; the option turns it off.
    let mut private = team.clone();
    private.scope = Scope::Private;
    assert_eq!(
        block_on(m.save(private.clone())).unwrap_err().code,
        Code::SecretDetected
    );
    let mut config = MemdirConfig::new(DIR);
    config.store.guard_private_secrets = false;
    let unguarded = Memdir::new(
        Tap::new(&fs),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        config,
    );
    block_on(unguarded.save(private)).unwrap();
}

/// Every private write path refuses a secret by default with `SECRET_DETECTED`, naming the rule
/// and never the value, and leaves the directory as it was; with the guard off each goes through.
#[test]
fn private_memory_refuses_secrets_by_default_on_every_write_path() {
    let secret = format!("AKIA{}", "QWERTYUIOPASDFGH");
    let fs = MemFs::new();
    let m = mem_store(&fs);
    block_on(m.save(input(
        "Role",
        "Senior Go dev",
        "user",
        "Prefers terse answers.\n",
    )))
    .unwrap();
    let before = fs.snapshot();
    let date = LocalDate {
        year: 2026,
        month: 12,
        day: 1,
    };
    let refusals = [
        // The body, the description (it becomes the index hook), the name (the index title).
        block_on(m.save(input(
            "Deploy",
            "aws",
            "reference",
            &format!("key {secret}\n"),
        ))),
        block_on(m.save(input(
            "Deploy",
            &format!("key {secret}"),
            "reference",
            "b\n",
        ))),
        block_on(m.save(input(
            &format!("Deploy {secret}"),
            "aws",
            "reference",
            "b\n",
        ))),
        block_on(m.update(
            "user_role.md",
            MemoryChanges {
                body: Some(format!("password is in {secret}\n")),
                ..MemoryChanges::default()
            },
        )),
    ];
    for (n, result) in refusals.into_iter().enumerate() {
        let err = result.unwrap_err();
        assert_eq!(err.code, Code::SecretDetected, "write {n}: {}", err.message);
        assert!(err.message.contains("AWS Access Token"), "{}", err.message);
        assert!(
            err.message.contains("cannot be written to memory"),
            "{}",
            err.message
        );
        assert!(
            !err.message.contains(&secret),
            "write {n} echoed the secret"
        );
        assert!(!format!("{err:?}").contains(&secret));
    }
    let err = block_on(m.append_log(&format!("- 14:02 token {secret}"), date)).unwrap_err();
    assert_eq!(err.code, Code::SecretDetected);
    assert!(!err.message.contains(&secret));
    assert_eq!(fs.snapshot(), before, "nothing written");

    // Turned off: the same writes land.
    let mut config = MemdirConfig::new(DIR);
    config.store.guard_private_secrets = false;
    let open = Memdir::new(
        Tap::new(&fs),
        TestClock::new(T0),
        None::<NoLlm>,
        NoTelemetry,
        config,
    );
    let s = saved(
        block_on(open.save(input(
            "Deploy",
            "aws",
            "reference",
            &format!("key {secret}\n"),
        )))
        .unwrap(),
    );
    assert!(file_text(&fs, &s.path).unwrap().contains(&secret));
    block_on(open.append_log(&format!("token {secret}"), date)).unwrap();
}

#[test]
fn update_and_delete_cannot_reach_through_a_symlink() {
    let fs = MemFs::new();
    fs.insert_file(
        "/outside/victim.md",
        "---\nname: V\ndescription: v\ntype: user\n---\n\nprecious\n",
    );
    fs.symlink("/outside", "/m/sub");
    let m = mem_store(&fs);
    let err = block_on(m.delete("sub/victim.md")).unwrap_err();
    assert_eq!(err.code, Code::PathSymlinkEscape);
    let changes = MemoryChanges {
        body: Some("overwritten".into()),
        ..MemoryChanges::default()
    };
    assert_eq!(
        block_on(m.update("sub/victim.md", changes))
            .unwrap_err()
            .code,
        Code::PathSymlinkEscape
    );
    assert!(file_text(&fs, "/outside/victim.md")
        .unwrap()
        .contains("precious"));
}

/// Since reference 2.1.214 memory files carry an ISO `modified` key; it is written on every
/// save and update, and it dates the memory for freshness when present (a copy or a checkout
/// resets the mtime, not the key).
#[test]
fn saves_write_modified_and_surfacing_ages_by_it() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let s = saved(block_on(m.save(input("Role", "Senior Go dev", "user", "b\n"))).unwrap());
    let text = file_text(&fs, &s.path).unwrap();
    let iso = memdir::manifest::iso_timestamp(T0);
    assert!(text.contains(&format!("\nmodified: \"{iso}\"\n")), "{text}");
    let parsed = memdir::parse_frontmatter(&text);
    assert_eq!(
        memdir::frontmatter::modified_ms(&parsed.frontmatter),
        Some(T0)
    );
    assert_eq!(parsed.header.name.as_deref(), Some("Role"));

    // An update stamps the time of the update.
    let day = 86_400_000.0;
    m.clock().now.set(T0 + 3.0 * day);
    block_on(m.update(
        "user_role.md",
        MemoryChanges {
            body: Some("c\n".into()),
            ..MemoryChanges::default()
        },
    ))
    .unwrap();
    let text = file_text(&fs, &s.path).unwrap();
    assert_eq!(
        memdir::frontmatter::modified_ms(&memdir::parse_frontmatter(&text).frontmatter),
        Some(T0 + 3.0 * day)
    );

    // Surfacing: the key, not the mtime, gives the age.
    fs.insert_file(
        "/m/old.md",
        format!(
            "---\nname: Old\nmodified: {}\n---\n\nfact\n",
            memdir::manifest::iso_timestamp(T0 - 7.0 * day)
        ),
    );
    fs.insert_file("/m/plain.md", "---\nname: Plain\n---\n\nfact\n");
    let now = T0 + 3.0 * day;
    let shown = block_on(m.surface(&[
        ("/m/old.md".to_owned(), now),
        ("/m/plain.md".to_owned(), now - 2.0 * day),
    ]));
    assert_eq!(shown.len(), 2);
    assert!(
        shown[0].header.starts_with("This memory is 10 days old."),
        "{}",
        shown[0].header
    );
    assert!(
        shown[1].header.starts_with("This memory is 2 days old."),
        "{}",
        shown[1].header
    );
}

/// Since reference 2.1.214 values with an inline ` #` are quoted (a plain one would be cut at
/// the comment by every YAML reader).
#[test]
fn saved_values_with_an_inline_hash_read_back_whole() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let description = "Use C# not F# #dotnet";
    let s = saved(block_on(m.save(input("C# style", description, "feedback", "b\n"))).unwrap());
    let text = file_text(&fs, &s.path).unwrap();
    assert!(
        text.contains(&format!("description: \"{description}\"\n")),
        "{text}"
    );
    assert!(
        text.contains("name: C# style\n"),
        "no ` #`, no quotes: {text}"
    );
    let parsed = memdir::parse_frontmatter(&text);
    assert_eq!(parsed.header.description.as_deref(), Some(description));
}

// ---------- the index a save rewrites, read as bytes ----------

/// A save reads the private index once, as bytes (`readHead` as long as the `lstat` said, plus
/// one), and writes back exactly the old bytes with the entry upserted (a byte-order mark,
/// frontmatter and non-ASCII kept). An index that grew between the `lstat` and the read is
/// read again whole; bytes that are not UTF-8 are refused and left alone.
#[test]
fn a_save_reads_the_index_as_bytes_sized_by_its_lstat() {
    let old = "\u{FEFF}---\ntitle: x\n---\n- [Café](cafe.md) — é 🦀\n- [B](b.md) — b\n";
    let entry = memdir::IndexEntry {
        title: "Role".into(),
        file: "user_role.md".into(),
        hook: "Go dev".into(),
    };
    let role = || input("Role", "Go dev", "user", "Body");
    let fs = MemFs::new();
    fs.insert_file("/m/MEMORY.md", old);
    let m = mem_store(&fs);
    block_on(m.save(role())).unwrap();
    let index_reads = |m: &MemStore<'_>| {
        let calls = m.store().fs().calls.borrow();
        calls
            .iter()
            .filter(|(op, p)| {
                p == "/m/MEMORY.md" && matches!(op, common::Op::ReadFile | common::Op::ReadHead)
            })
            .map(|(op, _)| *op)
            .collect::<Vec<_>>()
    };
    assert_eq!(index_reads(&m), [common::Op::ReadHead]);
    assert_eq!(
        file_text(&fs, "/m/MEMORY.md").unwrap(),
        memdir::index_entry::upsert_index_entry(old, &entry)
    );

    // Grown between the lstat and the read: the head read comes back full, the file is read whole.
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    fs.insert_file("/m/MEMORY.md", old);
    let mut host = Tap::new(fs);
    host.on(common::Op::ReadHead, "/m/MEMORY.md", move || {
        fs.insert_file("/m/MEMORY.md", format!("{old}- [C](c.md) — late\n"));
    });
    let m = Memdir::new(
        host,
        TestClock::new(T0),
        None,
        NoTelemetry,
        MemdirConfig::new(DIR),
    );
    block_on(m.save(role())).unwrap();
    assert_eq!(
        index_reads(&m),
        [common::Op::ReadHead, common::Op::ReadFile]
    );
    let grown = format!("{old}- [C](c.md) — late\n");
    assert_eq!(
        file_text(fs, "/m/MEMORY.md").unwrap(),
        memdir::index_entry::upsert_index_entry(&grown, &entry)
    );

    // Not UTF-8: refused, nothing written.
    let fs = MemFs::new();
    let bad = b"- [A](a.md) \xE9t\xE9\n".as_slice();
    fs.insert_file("/m/MEMORY.md", bad);
    let m = mem_store(&fs);
    let err = block_on(m.save(role())).unwrap_err();
    assert_eq!(err.code, Code::InvalidMemory, "{err:?}");
    assert!(err.message.contains("at byte 12"), "{}", err.message);
    assert_eq!(block_on(fs.read_file("/m/user_role.md")).ok(), None);
    assert_eq!(
        fs.snapshot()
            .into_iter()
            .find(|(p, _)| p == "/m/MEMORY.md")
            .map(|(_, d)| d),
        Some(bad.to_vec())
    );
}
