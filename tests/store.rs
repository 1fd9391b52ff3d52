//! The store over `MemFs` and over real temp dirs: read_index, scan, save/update/delete/list,
//! locking, cap warnings, the daily log, and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod std_fs;

use common::{block_on, TestClock};
use memdir::future::join_all;
use memdir::host::{
    Clock, DirEntry, FieldValue, FileStat, FileSystem, FsCapabilities, HostResult, NoLlm,
    NoTelemetry, Telemetry,
};
use memdir::store::{
    IndexView, LocalDate, MemoryChanges, Proposal, SaveInput, SaveOutcome, SavedMemory, Scope,
};
use memdir::{Code, MemFs, Memdir, MemdirConfig, MemoryType, WriteMode};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std_fs::{StdFs, TempDir};

const T0: f64 = 1_700_000_000_000.0;
const DIR: &str = "/m/";

// ---------- test hosts ----------

/// Completes on the second poll, so concurrent futures interleave.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// A borrowed filesystem that can yield before every call and hide capabilities.
struct SharedFs<'a, F: FileSystem> {
    inner: &'a F,
    yields: bool,
    caps: FsCapabilities,
}

impl<'a, F: FileSystem> SharedFs<'a, F> {
    fn new(inner: &'a F) -> Self {
        SharedFs {
            inner,
            yields: false,
            caps: inner.capabilities(),
        }
    }
    fn yielding(inner: &'a F) -> Self {
        SharedFs {
            yields: true,
            ..Self::new(inner)
        }
    }
    fn with_caps(inner: &'a F, caps: FsCapabilities) -> Self {
        SharedFs {
            caps,
            ..Self::new(inner)
        }
    }
    async fn pause(&self) {
        if self.yields {
            YieldOnce(false).await;
        }
    }
}

impl<F: FileSystem> FileSystem for SharedFs<'_, F> {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.pause().await;
        self.inner.read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.pause().await;
        self.inner.write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.pause().await;
        self.inner.read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.pause().await;
        self.inner.stat(path).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        self.pause().await;
        self.inner.mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        self.pause().await;
        self.inner.remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        self.caps
    }
    async fn rename(&self, from: &str, to: &str) -> HostResult<()> {
        self.pause().await;
        self.inner.rename(from, to).await
    }
    async fn realpath(&self, path: &str) -> HostResult<String> {
        self.pause().await;
        self.inner.realpath(path).await
    }
    async fn lstat(&self, path: &str) -> HostResult<FileStat> {
        self.pause().await;
        self.inner.lstat(path).await
    }
    async fn append_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.pause().await;
        self.inner.append_file(path, data).await
    }
    async fn create_exclusive(&self, path: &str, data: &str) -> HostResult<bool> {
        self.pause().await;
        self.inner.create_exclusive(path, data).await
    }
    async fn read_head(&self, path: &str, max_bytes: usize) -> HostResult<Vec<u8>> {
        self.pause().await;
        self.inner.read_head(path, max_bytes).await
    }
}

/// A test clock whose sleep yields once (so a waiting writer lets the holder run).
struct YieldClock(Cell<f64>);

impl Clock for YieldClock {
    fn now_ms(&self) -> f64 {
        self.0.get()
    }
    async fn sleep(&self, ms: u32) {
        self.0.set(self.0.get() + f64::from(ms));
        YieldOnce(false).await;
    }
}

/// A real clock for multi-threaded tests.
struct RealClock;

impl Clock for RealClock {
    fn now_ms(&self) -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0
    }
    async fn sleep(&self, ms: u32) {
        std::thread::sleep(std::time::Duration::from_millis(u64::from(ms)));
    }
}

/// Records events together with the index text on disk at the moment of emission.
struct Recorder<'a> {
    fs: &'a MemFs,
    events: RefCell<Vec<(String, Vec<(String, FieldValue)>, String)>>,
}

impl Telemetry for Recorder<'_> {
    fn emit(&self, event: &str, fields: &[(&str, FieldValue)]) {
        let index = self
            .fs
            .snapshot()
            .into_iter()
            .find(|(p, _)| p == "/m/MEMORY.md")
            .map(|(_, d)| String::from_utf8(d).unwrap())
            .unwrap_or_default();
        self.events.borrow_mut().push((
            event.to_owned(),
            fields.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(),
            index,
        ));
    }
}

type MemStore<'a> = Memdir<SharedFs<'a, MemFs>, TestClock, NoLlm, NoTelemetry>;

fn mem_store(fs: &MemFs) -> MemStore<'_> {
    Memdir::new(
        SharedFs::new(fs),
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
    assert_eq!(h.description.as_deref(), Some("The user wants tabs, not spaces"));
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
    assert!(!paths.iter().any(|p| p.ends_with(".memdir.lock")), "{paths:?}");
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
fn duplicate_names_get_distinct_files_and_replace_overwrites() {
    let fs = MemFs::new();
    let m = mem_store(&fs);
    let a = saved(block_on(m.save(input("Deploy", "first", "project", "a"))).unwrap());
    let b = saved(block_on(m.save(input("Deploy", "second", "project", "b"))).unwrap());
    let c = saved(block_on(m.save(input("deploy!", "third", "project", "c"))).unwrap());
    assert_eq!(a.file, "project_deploy.md");
    assert_eq!(b.file, "project_deploy-2.md");
    assert_eq!(c.file, "project_deploy-3.md");
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    let files: Vec<String> = index_lines(&index).into_iter().map(|e| e.file).collect();
    assert_eq!(
        files,
        ["project_deploy.md", "project_deploy-2.md", "project_deploy-3.md"]
    );

    let mut again = input("Deploy", "replaced", "project", "z");
    again.replace = true;
    let r = saved(block_on(m.save(again)).unwrap());
    assert_eq!(r.file, "project_deploy.md");
    assert!(!r.created);
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    let entries = index_lines(&index);
    assert_eq!(entries.len(), 3, "{index}");
    assert_eq!(entries[0].hook, "replaced");

    // A given file that exists is refused unless replace.
    let mut named = input("Other", "d", "user", "x");
    named.file = Some("project_deploy-2.md".to_owned());
    let err = block_on(m.save(named.clone())).unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    assert!(file_text(&fs, "/m/project_deploy-2.md").unwrap().contains("second"));
    named.replace = true;
    let r = saved(block_on(m.save(named)).unwrap());
    assert_eq!(r.file, "project_deploy-2.md");
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
            if file == "team/x.md" { Code::NotFound } else { code },
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
    assert_eq!(block_on(m.save(i)).unwrap_err().code, Code::PathSymlinkEscape);
    let mut i = input("N", "d", "user", "b");
    i.file = Some("link.md".to_owned());
    i.replace = true;
    let err = block_on(m.save(i)).unwrap_err();
    assert!(
        matches!(err.code, Code::PathSymlinkEscape | Code::PathDanglingSymlink),
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
    assert_eq!(block_on(m.save(i)).unwrap_err().code, Code::PathSymlinkEscape);
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
        let m = Memdir::<_, _>::new(SharedFs::new(&fs), TestClock::new(T0), None::<NoLlm>, NoTelemetry, config);
        let err = block_on(m.save(input("n", "d", "user", ""))).unwrap_err();
        assert_eq!(err.code, Code::WriteForbidden);
        assert_eq!(block_on(m.delete("x.md")).unwrap_err().code, Code::WriteForbidden);
        let date = LocalDate { year: 2026, month: 1, day: 2 };
        assert_eq!(block_on(m.append_log("x", date)).unwrap_err().code, Code::WriteForbidden);
        assert!(fs.snapshot().is_empty());
    }
    let fs = MemFs::new();
    let mut config = MemdirConfig::new(DIR);
    config.write_mode = WriteMode::Confirm;
    let m = Memdir::<_, _>::new(SharedFs::new(&fs), TestClock::new(T0), None::<NoLlm>, NoTelemetry, config);
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
    assert!(matches!(&del, SaveOutcome::Proposed(Proposal::Delete { file }) if file == "user_n.md"));
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
        SharedFs::yielding(&fs),
        YieldClock(Cell::new(T0)),
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
        Memdir::<_, _>::new(
            SharedFs::yielding(&fs),
            YieldClock(Cell::new(T0)),
            None::<NoLlm>,
            NoTelemetry,
            MemdirConfig::new(DIR),
        )
    };
    let (a, b) = (make(), make());
    let mut futures = Vec::new();
    for i in 0..6 {
        let who = if i % 2 == 0 { &a } else { &b };
        futures.push(who.save(input(&format!("Same name {}", i / 2), &format!("#{i}"), "project", "")));
    }
    let outs = block_on(join_all(futures));
    assert!(outs.iter().all(Result::is_ok), "{outs:?}");
    let index = file_text(&fs, "/m/MEMORY.md").unwrap();
    let mut hooks: Vec<String> = index_lines(&index).into_iter().map(|e| e.hook).collect();
    hooks.sort();
    assert_eq!(hooks, ["#0", "#1", "#2", "#3", "#4", "#5"]);
    let mut files: Vec<String> = index_lines(&index).into_iter().map(|e| e.file).collect();
    files.dedup();
    assert_eq!(files.len(), 6);
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
    let files: Vec<String> = index_lines(&tmp.read("MEMORY.md")).into_iter().map(|e| e.file).collect();
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
                    block_on(m.save(input(&format!("t{t} m{i}"), &format!("{t}-{i}"), "project", "")))
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
    let m = Memdir::<_, _>::new(SharedFs::new(&fs), TestClock::new(T0), None::<NoLlm>, NoTelemetry, config);
    let err = block_on(m.save(input("A", "a", "user", ""))).unwrap_err();
    assert_eq!(err.code, Code::LockTimeout);
    let waited = m_clock(&m) - T0;
    assert!((10_000.0..10_400.0).contains(&waited), "{waited}");
    assert!(file_text(&fs, "/m/user_a.md").is_none());
    assert_eq!(file_text(&fs, "/m/.memdir.lock").unwrap(), format!("alive\n{}", T0 - 1_000.0));

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
    // The clock is private to Memdir; observe it through an id-free path: the lock file test
    // clock is the one we passed in, reachable only via behaviour. Use a save-free read.
    m_clock_of(m)
}

fn m_clock_of<F: FileSystem>(_m: &Memdir<F, TestClock>) -> f64 {
    unimplemented!()
}
