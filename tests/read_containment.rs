//! Reads are contained like writes (issue #19 item 4): a symlink from the memory directory to a
//! file outside, to a `/usr`-like tree, to `/`, and loops are never read by scan, manifest,
//! surface, readIndex, list, lint or the memory tool; links that stay inside keep working; the
//! walk is bounded by depth, directory count and entry count, with a telemetry event past a
//! bound and never an error.

mod common;

use common::fs::READS;
use common::{block_on, Recorder, Tap, TestClock};
use memdir::host::{FieldValue, FileSystem, FsCapabilities};
use memdir::lint::{lint_store, LintOptions};
use memdir::memory_tool::{MemoryTool, MemoryToolCommand, MemoryToolOutcome};
use memdir::recall::surface_memories;
use memdir::store::{
    Scope, Store, StoreConfig, WriteMode, EVENT_READ_OUTSIDE, EVENT_SCAN_CAPPED, MAX_SCAN_DEPTH,
    MAX_SCAN_DIRS, MAX_SCAN_ENTRIES,
};
use memdir::{Code, MemFs};

/// A fake GitHub token: the secret scanner fires on it (checked below), so a read of the
/// credentials file would show in lint's findings and in surfaced text.
fn token() -> String {
    format!(
        "ghp_{}",
        "a1B2c3D4e5F6g7H8i9J0".repeat(2).get(..36).unwrap()
    )
}

fn memory(name: &str) -> String {
    format!("---\nname: {name}\ndescription: {name} memory\ntype: user\n---\n{name} body\n")
}

/// Records every call; the reads that matter are those of [`READS`] (`readFile`, `readHead`,
/// `readDir`, `stat`).
type RecordingFs<'a> = Tap<&'a MemFs>;

/// A recording filesystem that does not offer `realpath`.
fn without_realpath(inner: &MemFs) -> RecordingFs<'_> {
    Tap::with_caps(
        inner,
        FsCapabilities {
            realpath: false,
            ..inner.capabilities()
        },
    )
}

/// Paths read or listed that are not below `/m/` (the memory directory's real path).
fn outside_reads(fs: &RecordingFs<'_>) -> Vec<String> {
    fs.paths_of(READS)
        .into_iter()
        .filter(|p| !(p.as_str() == "/m" || p.starts_with("/m/")))
        .collect()
}

type TestStore<'a> = Store<RecordingFs<'a>, TestClock, &'a Recorder>;

fn store<'a>(fs: RecordingFs<'a>, events: &'a Recorder) -> TestStore<'a> {
    Store::new(
        fs,
        TestClock::new(1.8e12),
        events,
        "/m/",
        WriteMode::Auto,
        StoreConfig::default(),
    )
}

/// A memory directory with links out (a credentials file, a `/usr`-like tree, `/`), loops, and
/// links that stay inside.
fn hostile() -> MemFs {
    let fs = MemFs::new();
    fs.insert_file("/m/a.md", memory("a"));
    fs.insert_file("/m/notes/real.md", memory("real"));
    fs.insert_file(
        "/m/MEMORY.md",
        "- [A](a.md) — a\n- [Creds](creds.md) — leaked?\n- [Alias](alias.md) — inside link\n",
    );
    // Outside.
    fs.insert_file(
        "/home/u/.config/credentials",
        format!(
            "---\nname: creds\ndescription: SECRET-DESCRIPTION\ntype: user\n---\ntoken = {}\n",
            token()
        ),
    );
    for d in 0..40 {
        for e in 0..5 {
            fs.insert_file(&format!("/usrlike/d{d}/e{e}/f.md"), memory("usr"));
        }
    }
    fs.symlink("/home/u/.config/credentials", "/m/creds.md");
    fs.symlink("/usrlike", "/m/usr");
    fs.symlink("/", "/m/root");
    fs.symlink("../../usrlike/d0", "/m/notes/rel-out");
    // Loops.
    fs.symlink("/m", "/m/loop");
    fs.symlink("..", "/m/notes/up");
    fs.symlink("/m/self.md", "/m/self.md");
    // Inside links.
    fs.symlink("/m/notes/real.md", "/m/alias.md");
    fs.symlink("/m/notes", "/m/shortcut");
    fs
}

#[test]
fn the_fake_token_is_a_secret() {
    assert!(!memdir::secrets::scan_for_secrets(&token()).is_empty());
}

#[test]
fn scan_and_manifest_read_nothing_outside() {
    let mem = hostile();
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    let headers = block_on(s.scan()).unwrap();
    let mut names: Vec<&str> = headers.iter().map(|h| h.filename.as_str()).collect();
    names.sort_unstable();
    // The notes directory is listed once (not again through `shortcut`, `loop` or `up`).
    assert_eq!(names, ["a.md", "alias.md", "notes/real.md"]);
    assert_eq!(outside_reads(s.fs()), Vec::<String>::new());
    let manifest = block_on(s.manifest()).unwrap();
    assert!(!manifest.contains("SECRET"), "{manifest}");
    assert!(!manifest.contains("usr"), "{manifest}");
    // creds.md, usr, root and notes/rel-out were skipped, and said so.
    let outside = events.named(EVENT_READ_OUTSIDE);
    assert_eq!(outside.len(), 2, "one per scan");
    assert_eq!(
        Recorder::field(&outside[0], "operation"),
        FieldValue::Str("scan".into())
    );
    assert_eq!(Recorder::field(&outside[0], "count"), FieldValue::Num(4.0));
    assert!(events.named(EVENT_SCAN_CAPPED).is_empty());
}

#[test]
fn surface_leaves_out_files_that_lead_outside() {
    let mem = hostile();
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    let paths: Vec<(String, f64)> = [
        "/m/creds.md",
        "/m/usr/d0/e0/f.md",
        "/m/root/home/u/.config/credentials",
        "/m/notes/rel-out/e0/f.md",
        "/m/a.md",
        "/m/alias.md",
        "/m/shortcut/real.md",
    ]
    .iter()
    .map(|p| ((*p).to_owned(), 1.7e12))
    .collect();
    let shown = block_on(surface_memories(&s, &paths));
    let shown_paths: Vec<&str> = shown.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(
        shown_paths,
        ["/m/a.md", "/m/alias.md", "/m/shortcut/real.md"]
    );
    assert!(shown.iter().all(|m| !m.content.contains("ghp_")));
    assert_eq!(outside_reads(s.fs()), Vec::<String>::new());
}

#[test]
fn read_contained_refuses_links_out_and_follows_links_in() {
    let mem = hostile();
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    for path in [
        "/m/creds.md",
        "/m/usr/d0/e0/f.md",
        "/m/root/home/u/.config/credentials",
        "/m/../home/u/.config/credentials",
    ] {
        let err = block_on(s.read_contained(path)).unwrap_err();
        assert_eq!(err.code, Code::PathSymlinkEscape, "{path}");
        assert!(!err.message.contains("ghp_"));
    }
    let err = block_on(s.read_contained("/m/self.md")).unwrap_err();
    assert_eq!(err.code, Code::PathSymlinkLoop);
    let err = block_on(s.read_contained("/m/none.md")).unwrap_err();
    assert_eq!(err.code, Code::NotFound);
    assert_eq!(
        block_on(s.read_contained("/m/alias.md")).unwrap(),
        memory("real")
    );
    assert_eq!(
        block_on(s.read_contained("/m/loop/notes/up/a.md")).unwrap(),
        memory("a")
    );
    assert_eq!(outside_reads(s.fs()), Vec::<String>::new());
}

#[test]
fn an_index_that_leads_outside_is_refused_by_read_index_and_list() {
    let mem = hostile();
    mem.insert_file("/elsewhere/MEMORY.md", "- [Leak](leak.md) — SECRET-HOOK\n");
    mem.insert_file(
        "/elsewhere/team/MEMORY.md",
        "- [Leak](leak.md) — SECRET-HOOK\n",
    );
    mem.symlink("/elsewhere/team", "/m/team");
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    // `team/` leads outside: its index is refused, and so is a list that would read it.
    let err = block_on(s.read_index_of(Scope::Team)).unwrap_err();
    assert_eq!(err.code, Code::PathSymlinkEscape);
    let err = block_on(s.list()).unwrap_err();
    assert_eq!(err.code, Code::PathSymlinkEscape);

    // Without it, list says which entries of the private index exist inside.
    block_on(mem.remove("/m/team")).unwrap();
    let listed = block_on(s.list()).unwrap();
    let exists: Vec<(&str, bool)> = listed.iter().map(|l| (l.file.as_str(), l.exists)).collect();
    // creds.md is a regular file, but outside: listed as not existing.
    assert_eq!(
        exists,
        [("a.md", true), ("creds.md", false), ("alias.md", true)]
    );
    let list_events = events.named(EVENT_READ_OUTSIDE);
    assert!(list_events.iter().any(|f| Recorder::field(f, "operation")
        == FieldValue::Str("list".into())
        && Recorder::field(f, "count") == FieldValue::Num(1.0)));
    block_on(mem.remove("/m/MEMORY.md")).unwrap();
    // Now the private index itself is the link out.
    mem.symlink("/elsewhere/MEMORY.md", "/m/MEMORY.md");
    let err = block_on(s.read_index()).unwrap_err();
    assert_eq!(err.code, Code::PathSymlinkEscape);
    assert!(!err.message.contains("SECRET"));
    assert_eq!(
        block_on(s.list()).unwrap_err().code,
        Code::PathSymlinkEscape
    );
    assert_eq!(outside_reads(s.fs()), Vec::<String>::new());

    // A link that stays inside is read.
    block_on(mem.remove("/m/MEMORY.md")).unwrap();
    mem.insert_file("/m/notes/INDEX.md", "- [A](a.md) — a\n");
    mem.symlink("/m/notes/INDEX.md", "/m/MEMORY.md");
    let view = block_on(s.read_index()).unwrap();
    assert!(view.exists && view.content.contains("[A](a.md)"));
}

#[test]
fn lint_reads_no_file_outside() {
    let mem = hostile();
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    let report = block_on(lint_store(&s, &LintOptions::default())).unwrap();
    // a.md, alias.md, notes/real.md; never the credentials (whose token would be a SECRET).
    assert_eq!(report.files_checked, 3);
    assert!(!report.codes().contains(&"SECRET"), "{:?}", report.codes());
    assert!(report
        .findings
        .iter()
        .all(|f| f.file.as_deref() != Some("creds.md") || f.code == "DANGLING_INDEX_ENTRY"));
    assert_eq!(outside_reads(s.fs()), Vec::<String>::new());
}

#[test]
fn the_memory_tool_neither_shows_nor_lists_what_is_outside() {
    let mem = hostile();
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    let tool = MemoryTool::new(&s);
    let view = |path: &str| {
        block_on(tool.run(MemoryToolCommand::View {
            path: path.to_owned(),
            view_range: None,
        }))
    };
    let MemoryToolOutcome::Done { text } = view("/memories").unwrap() else {
        panic!("not done")
    };
    for hidden in ["creds.md", "/memories/usr", "/memories/root", "rel-out"] {
        assert!(!text.contains(hidden), "{hidden} listed:\n{text}");
    }
    for shown in [
        "/memories/a.md",
        "/memories/alias.md",
        "/memories/notes/real.md",
    ] {
        assert!(text.contains(shown), "{shown} missing:\n{text}");
    }
    for path in [
        "/memories/creds.md",
        "/memories/usr",
        "/memories/usr/d0/e0/f.md",
        "/memories/root/etc",
    ] {
        let err = view(path).unwrap_err();
        assert_eq!(err.code, Code::PathSymlinkEscape, "{path}");
    }
    let MemoryToolOutcome::Done { text } = view("/memories/alias.md").unwrap() else {
        panic!("not done")
    };
    assert!(text.contains("real body"));
    assert_eq!(outside_reads(s.fs()), Vec::<String>::new());
}

#[test]
fn without_realpath_a_loop_costs_bounded_work() {
    let mem = MemFs::new();
    mem.insert_file("/m/a.md", memory("a"));
    mem.symlink("/m", "/m/loop");
    let events = Recorder::default();
    let s = store(without_realpath(&mem), &events);
    let headers = block_on(s.scan()).unwrap();
    assert!(headers.iter().any(|h| h.filename == "a.md"));
    assert!(headers.iter().any(|h| h.filename == "loop/a.md"));
    // One directory per level, and no level past the cap.
    let listed = s
        .fs()
        .paths_of(READS)
        .iter()
        .filter(|p| p.ends_with('/'))
        .count();
    assert_eq!(listed, MAX_SCAN_DEPTH + 1);
    let capped = events.named(EVENT_SCAN_CAPPED);
    assert_eq!(capped.len(), 1);
    assert_eq!(
        Recorder::field(&capped[0], "cap"),
        FieldValue::Str("depth".into())
    );
}

#[test]
fn the_walk_stops_at_its_depth_bound_with_realpath_too() {
    let mem = MemFs::new();
    let mut dir = String::from("/m");
    for level in 1..=MAX_SCAN_DEPTH + 2 {
        dir.push_str(&format!("/d{level}"));
        mem.insert_file(&format!("{dir}/at{level}.md"), memory("deep"));
    }
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    let headers = block_on(s.scan()).unwrap();
    let mut levels: Vec<usize> = headers
        .iter()
        .map(|h| h.filename.matches('/').count())
        .collect();
    levels.sort_unstable();
    assert_eq!(levels, (1..=MAX_SCAN_DEPTH).collect::<Vec<_>>());
    let capped = events.named(EVENT_SCAN_CAPPED);
    assert_eq!(capped.len(), 1);
    assert_eq!(
        Recorder::field(&capped[0], "cap"),
        FieldValue::Str("depth".into())
    );
}

#[test]
fn the_walk_stops_at_its_directory_bound() {
    let mem = MemFs::new();
    for i in 0..MAX_SCAN_DIRS + 10 {
        mem.insert_file(&format!("/m/x{i:05}/f.md"), memory("x"));
    }
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    let headers = block_on(s.scan()).unwrap();
    assert_eq!(headers.len(), 200);
    let listed = s
        .fs()
        .paths_of(READS)
        .iter()
        .filter(|p| p.ends_with('/'))
        .count();
    assert_eq!(listed, MAX_SCAN_DIRS);
    let capped = events.named(EVENT_SCAN_CAPPED);
    assert_eq!(capped.len(), 1);
    assert_eq!(
        Recorder::field(&capped[0], "cap"),
        FieldValue::Str("dirs".into())
    );
}

#[test]
fn the_walk_stops_at_its_entry_bound() {
    let mem = MemFs::new();
    mem.insert_file("/m/a.md", memory("a"));
    for i in 0..MAX_SCAN_ENTRIES {
        mem.insert_file(&format!("/m/n{i:06}.txt"), "");
    }
    // Listed after the bound (names sort after `n…`): never seen.
    mem.insert_file("/m/z.md", memory("z"));
    let events = Recorder::default();
    let s = store(RecordingFs::new(&mem), &events);
    let headers = block_on(s.scan()).unwrap();
    let names: Vec<&str> = headers.iter().map(|h| h.filename.as_str()).collect();
    assert_eq!(names, ["a.md"]);
    let capped = events.named(EVENT_SCAN_CAPPED);
    assert_eq!(capped.len(), 1);
    assert_eq!(
        Recorder::field(&capped[0], "cap"),
        FieldValue::Str("entries".into())
    );
    assert_eq!(
        Recorder::field(&capped[0], "entries_seen"),
        FieldValue::Num(MAX_SCAN_ENTRIES as f64)
    );
}
