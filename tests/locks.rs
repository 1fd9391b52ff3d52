//! The directory lock and the write path under hostile hosts (issue #19 items 5, 6, 7, 15):
//! host calls that never answer, many writers in one process, lock files with absurd times, a
//! directory in the lock file's place, a lock left by a dead process, and temp files left by
//! killed writers.

mod common;

use common::{block_on, Tap, TestClock};
use memdir::future::{join_all, race, Either};
use memdir::host::{Clock, FileSystem, NoTelemetry};
use memdir::store::{SaveInput, SaveOutcome, Store, StoreConfig, WriteMode};
use memdir::{Code, MemFs};

const T0: f64 = 1_700_000_000_000.0;
const LOCK: &str = "/m/.memdir.lock";

/// A host over a `MemFs` that can yield before every call, hang writes or the host lock, and
/// tell a host id, its pid and which pids are alive.
type Host<'a> = Tap<&'a MemFs>;

fn input(name: &str) -> SaveInput {
    SaveInput {
        name: name.into(),
        description: format!("about {name}"),
        memory_type: "project".into(),
        body: "body".into(),
        ..SaveInput::default()
    }
}

fn store<'a, C: Clock>(host: Host<'a>, clock: C, config: StoreConfig) -> Store<Host<'a>, C> {
    Store::new(host, clock, NoTelemetry, "/m/", WriteMode::Auto, config)
}

fn text(fs: &MemFs, path: &str) -> Option<String> {
    block_on(fs.read_file(path)).ok()
}

fn saved_file(out: &SaveOutcome) -> String {
    match out {
        SaveOutcome::Saved(s) => s.file.clone(),
        other => panic!("not saved: {other:?}"),
    }
}

// ---------- item 6: one process, many writers ----------

#[test]
fn two_hundred_concurrent_saves_on_one_instance_all_land_in_order() {
    let fs = MemFs::new();
    let mut host = Host::new(&fs);
    host.yields = true;
    let s = store(host, TestClock::yielding(T0), StoreConfig::default());
    let names: Vec<String> = (0..200).map(|i| format!("Note {i:03}")).collect();
    let outs = block_on(join_all(names.iter().map(|n| s.save(input(n))).collect()));
    let files: Vec<String> = outs
        .iter()
        .map(|o| saved_file(o.as_ref().expect("every save lands")))
        .collect();
    // FIFO: the index lists the memories in the order the saves were asked for.
    let index = text(&fs, "/m/MEMORY.md").unwrap();
    let order: Vec<&str> = index
        .lines()
        .map(|l| l.split("](").nth(1).unwrap().split(')').next().unwrap())
        .collect();
    assert_eq!(order, files);
    assert_eq!(order.len(), 200);
    assert!(text(&fs, LOCK).is_none());
}

#[test]
fn a_waiter_that_times_out_leaves_the_queue_and_the_next_writer_goes() {
    let fs = MemFs::new();
    let s = store(Host::new(&fs), TestClock::new(T0), StoreConfig::default());
    // The holder never finishes; the waiter gives up after lock_timeout_ms of clock time.
    let out = block_on(race(
        s.with_write_lock(std::future::pending::<()>()),
        s.save(input("Waiter")),
    ));
    let Either::Right(Err(e)) = out else {
        panic!("the waiter should fail")
    };
    assert_eq!(e.code, Code::LockTimeout);
    assert!(s.clock().now_ms() - T0 >= 10_000.0);
    // The dropped holder gave the in-process lock back; its lock file is removed by this
    // store's next writer, which therefore does not wait for it to go stale.
    let before = s.clock().now_ms();
    block_on(s.save(input("After"))).unwrap();
    assert_eq!(s.clock().now_ms(), before);
    assert!(text(&fs, LOCK).is_none());
}

// ---------- item 5: host calls that never answer ----------

#[test]
fn a_hung_write_times_out_and_releases_the_lock() {
    let fs = MemFs::new();
    let host = Host::new(&fs);
    host.hang_writes.set(true);
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    let err = block_on(s.save(input("Hung"))).unwrap_err();
    assert_eq!(err.code, Code::Timeout, "{}", err.message);
    assert!(s.clock().now_ms() - T0 >= 10_000.0);
    assert!(text(&fs, LOCK).is_none(), "the lock file was given back");
    // The filesystem recovers: the next save goes through (no LOCK_TIMEOUT).
    s.fs().hang_writes.set(false);
    block_on(s.save(input("Recovered"))).unwrap();
    assert!(text(&fs, "/m/MEMORY.md").unwrap().contains("Recovered"));
}

#[test]
fn a_host_lock_that_never_answers_is_bounded_by_the_lock_timeout() {
    let fs = MemFs::new();
    let mut host = Host::new(&fs);
    host.host_lock = Some(true);
    let config = StoreConfig {
        lock_timeout_ms: 2_500,
        ..StoreConfig::default()
    };
    let s = store(host, TestClock::new(T0), config);
    let err = block_on(s.save(input("A"))).unwrap_err();
    assert_eq!(err.code, Code::LockTimeout);
    assert_eq!(s.clock().now_ms() - T0, 2_500.0);
}

#[test]
fn a_hung_exclusive_create_is_a_lock_timeout() {
    let fs = MemFs::new();
    let host = Host::new(&fs);
    host.hang_create.set(true);
    let config = StoreConfig {
        lock_timeout_ms: 3_000,
        ..StoreConfig::default()
    };
    let s = store(host, TestClock::new(T0), config);
    assert_eq!(
        block_on(s.save(input("A"))).unwrap_err().code,
        Code::LockTimeout
    );
    s.fs().hang_create.set(false);
    block_on(s.save(input("B"))).unwrap();
}

#[test]
fn zero_host_call_timeout_waits_for_slow_calls() {
    // With the bound off, a call that answers late still counts (no timer is raced).
    let fs = MemFs::new();
    let mut host = Host::new(&fs);
    host.yields = true;
    let config = StoreConfig {
        host_call_timeout_ms: 0,
        ..StoreConfig::default()
    };
    let s = store(host, TestClock::new(T0), config);
    block_on(s.save(input("Slow"))).unwrap();
}

// ---------- item 7: lock files ----------

/// Save once with a lock file already in place; the clock time the save waited.
fn save_over_lock(fs: &MemFs, host: Host<'_>, stale_ms: u32) -> (Result<(), Code>, f64) {
    let config = StoreConfig {
        lock_timeout_ms: 120_000,
        lock_stale_ms: stale_ms,
        ..StoreConfig::default()
    };
    let s = store(host, TestClock::new(T0), config);
    let out = block_on(s.save(input("A"))).map(|_| ()).map_err(|e| e.code);
    if out.is_ok() {
        assert!(text(fs, LOCK).is_none());
    }
    (out, s.clock().now_ms() - T0)
}

#[test]
fn absurd_lock_times_are_judged_by_the_file_mtime() {
    for body in [
        format!("future\n{}", T0 + 3_600_000.0),
        "huge\n1e308".to_owned(),
        "big\n2e15".to_owned(),
        "neg\n-5".to_owned(),
    ] {
        // An old file: broken at once, whatever its body claims.
        let fs = MemFs::new();
        fs.insert_file(LOCK, &body);
        fs.set_mtime(LOCK, T0 - 31_000.0);
        let (out, waited) = save_over_lock(&fs, Host::new(&fs), 30_000);
        assert_eq!((out, waited), (Ok(()), 0.0), "{body}");
        // A fresh file: held until the file itself is 30 s old, not until the claimed time.
        let fs = MemFs::new();
        fs.insert_file(LOCK, &body);
        fs.set_mtime(LOCK, T0);
        let (out, waited) = save_over_lock(&fs, Host::new(&fs), 30_000);
        assert_eq!(out, Ok(()), "{body}");
        assert!((30_000.0..31_000.0).contains(&waited), "{body}: {waited}");
    }
}

#[test]
fn the_older_credible_time_decides() {
    // The body says old, the file is fresh: the body's time counts (the older one).
    let fs = MemFs::new();
    fs.insert_file(LOCK, format!("x\n{}", T0 - 40_000.0));
    fs.set_mtime(LOCK, T0);
    assert_eq!(save_over_lock(&fs, Host::new(&fs), 30_000), (Ok(()), 0.0));
    // Nothing credible at all (a far-future body on a far-future file): garbage, broken.
    let fs = MemFs::new();
    fs.insert_file(LOCK, format!("x\n{}", T0 + 9e9));
    fs.set_mtime(LOCK, T0 + 9e9);
    assert_eq!(save_over_lock(&fs, Host::new(&fs), 30_000), (Ok(()), 0.0));
}

#[test]
fn a_directory_at_the_lock_path_fails_at_once() {
    let fs = MemFs::new();
    block_on(fs.mkdir(LOCK)).unwrap();
    let s = store(Host::new(&fs), TestClock::new(T0), StoreConfig::default());
    let err = block_on(s.save(input("A"))).unwrap_err();
    assert_eq!(err.code, Code::HostFs);
    assert!(err.message.contains("is a directory"), "{}", err.message);
    assert!(err.cause.as_ref().unwrap().has_code("EISDIR"));
    assert_eq!(s.clock().now_ms(), T0, "no waiting");
    // Nothing was written and the directory is still there.
    assert!(text(&fs, "/m/MEMORY.md").is_none());
    assert!(block_on(fs.stat(LOCK)).is_ok());
}

fn owned(fs: &MemFs, alive: Vec<u32>) -> Host<'_> {
    let mut host = Host::new(fs);
    host.owner = Some(("box", 7, alive));
    host
}

#[test]
fn a_lock_left_by_a_dead_process_on_this_host_is_broken_at_once() {
    let fresh = |owner: &str| {
        let fs = MemFs::new();
        fs.insert_file(LOCK, format!("h\n{T0}\n{owner}"));
        fs.set_mtime(LOCK, T0);
        fs
    };
    // Dead pid on our host: broken without waiting.
    let fs = fresh("99@box");
    assert_eq!(
        save_over_lock(&fs, owned(&fs, vec![7]), 30_000),
        (Ok(()), 0.0)
    );
    // Alive pid: held until stale.
    let fs = fresh("99@box");
    let (out, waited) = save_over_lock(&fs, owned(&fs, vec![7, 99]), 30_000);
    assert!(out.is_ok() && waited >= 30_000.0, "{waited}");
    // Another host: we cannot tell, so the stale age decides.
    let fs = fresh("99@elsewhere");
    let (out, waited) = save_over_lock(&fs, owned(&fs, vec![7]), 30_000);
    assert!(out.is_ok() && waited >= 30_000.0, "{waited}");
    // A host that cannot tell whether processes live: the stale age decides.
    let fs = fresh("99@box");
    let (out, waited) = save_over_lock(&fs, Host::new(&fs), 30_000);
    assert!(out.is_ok() && waited >= 30_000.0, "{waited}");
}

#[test]
fn the_lock_file_names_its_process_when_the_host_tells() {
    let fs = MemFs::new();
    let s = store(
        owned(&fs, vec![7]),
        TestClock::new(T0),
        StoreConfig::default(),
    );
    let body = block_on(s.with_write_lock(async { text(&fs, LOCK) }))
        .unwrap()
        .unwrap();
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 3, "{body}");
    assert_eq!(lines[1].parse::<f64>().unwrap(), T0);
    assert_eq!(lines[2], "7@box");
    // Without the capability, the body stays two lines.
    let fs = MemFs::new();
    let s = store(Host::new(&fs), TestClock::new(T0), StoreConfig::default());
    let body = block_on(s.with_write_lock(async { text(&fs, LOCK) }))
        .unwrap()
        .unwrap();
    assert_eq!(body.lines().count(), 2, "{body}");
}

// ---------- item 15: temp files left by killed writers ----------

#[test]
fn stale_temp_files_are_swept_under_the_lock() {
    let fs = MemFs::new();
    let old = [
        "/m/MEMORY.md.tmp-lx2a1b3k9",
        "/m/team/project_x.md.tmp-123-ab09ff",
        "/m/a/b/c.md.tmp-q.tmp-77-00",
    ];
    let kept = [
        "/m/fresh.md.tmp-zz1",      // young: may belong to a live writer
        "/m/notes.tmp-1.md",        // a memory file, not a temp file
        "/m/MEMORY.md.tmp-UPPER",   // not our id alphabet
        "/m/logs/readme.txt",       // not ours at all
        "/m/.memdir-journal.tmp-x", // young (below)
    ];
    for p in old.iter().chain(kept.iter()) {
        fs.insert_file(p, "x");
    }
    for p in old.iter().chain(&kept[1..4]) {
        fs.set_mtime(p, T0 - 31_000.0);
    }
    for p in [kept[0], kept[4]] {
        fs.set_mtime(p, T0 - 1_000.0);
    }
    let s = store(Host::new(&fs), TestClock::new(T0), StoreConfig::default());
    block_on(s.save(input("A"))).unwrap();
    for p in old {
        assert!(text(&fs, p).is_none(), "{p} should be swept");
    }
    for p in kept {
        assert!(text(&fs, p).is_some(), "{p} should stay");
    }
    // At most once per stale age: a new stale temp file waits for the next sweep.
    fs.insert_file("/m/late.md.tmp-abc", "x");
    fs.set_mtime("/m/late.md.tmp-abc", T0 - 60_000.0);
    block_on(s.save(input("B"))).unwrap();
    assert!(text(&fs, "/m/late.md.tmp-abc").is_some());
    s.clock().now.set(T0 + 31_000.0);
    block_on(s.save(input("C"))).unwrap();
    assert!(text(&fs, "/m/late.md.tmp-abc").is_none());
}

// ---------- the lock file as the journal ----------

#[test]
fn a_save_carries_its_journal_in_the_lock_file_and_writes_no_journal_file() {
    // Leaked: the call hook below looks at it while the save runs.
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    let mut host = Host::new(fs);
    let calls = std::rc::Rc::clone(&host.calls);
    let seen = host.text_when_written("/m/project_a.md", fs, LOCK);
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    block_on(s.save(input("A"))).unwrap();
    let lock = seen
        .borrow()
        .clone()
        .expect("the lock file was there during the write");
    assert!(lock.ends_with("\njournal private project_a.md"), "{lock:?}");
    let journal_writes = calls
        .borrow()
        .iter()
        .filter(|(_, p)| p.contains(".memdir-journal"))
        .filter(|(op, _)| *op != common::Op::ReadFile)
        .count();
    assert_eq!(journal_writes, 0, "{:?}", calls.borrow());
    assert!(text(fs, LOCK).is_none());
    assert!(text(fs, "/m/MEMORY.md").unwrap().contains("(project_a.md)"));
}

#[test]
fn the_journal_of_a_killed_writers_lock_file_is_repaired_by_the_writer_that_breaks_it() {
    let fs = MemFs::new();
    fs.insert_file("/m/MEMORY.md", "- [Old](project_old.md) — kept\n");
    fs.insert_file(
        "/m/project_old.md",
        "---\nname: Old\ndescription: kept\ntype: project\n---\n\nold\n",
    );
    // Killed after writing its memory file, before the index: its stale lock file names it.
    fs.insert_file(
        "/m/project_orphan.md",
        "---\nname: Orphan\ndescription: half saved\ntype: project\n---\n\nx\n",
    );
    // And a delete killed after removing its file (no owner tag: an empty third line).
    fs.insert_file(
        LOCK,
        format!(
            "h\n{}\n\njournal private project_orphan.md\njournal private project_old.md",
            T0 - 40_000.0
        ),
    );
    block_on(fs.remove("/m/project_old.md")).unwrap();
    fs.set_mtime(LOCK, T0 - 40_000.0);
    assert_eq!(save_over_lock(&fs, Host::new(&fs), 30_000), (Ok(()), 0.0));
    let index = text(&fs, "/m/MEMORY.md").unwrap();
    assert!(
        index.contains("- [Orphan](project_orphan.md) — half saved"),
        "{index}"
    );
    assert!(
        !index.contains("project_old.md"),
        "dangling entry removed: {index}"
    );
    assert!(index.contains("(project_a.md)"), "{index}");
    assert!(text(&fs, "/m/.memdir-journal").is_none());
}

#[test]
fn a_failed_index_write_that_cannot_be_undone_leaves_a_journal_file() {
    // The index write fails (a directory is in its place) and the new memory file cannot be
    // removed either: the journal the lock file carried must outlive the lock, as a journal
    // file for the next writer.
    let fs = MemFs::new();
    let mut host = Host::new(&fs);
    host.denied = vec![common::Op::Remove];
    block_on(fs.mkdir("/m/MEMORY.md")).unwrap();
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    assert!(block_on(s.save(input("A"))).is_err());
    assert_eq!(
        text(&fs, "/m/.memdir-journal").as_deref(),
        Some("private project_a.md\n")
    );
}

/// A replace whose index write hits a full disk: the memory file is already new, putting the
/// old one back fails on the same full disk, and so does writing the journal file. The lock
/// file, which carries the save's journal line, is then the only record and must stay; once
/// space is back and the lock is stale, the writer that breaks it brings the index in line
/// with the new file.
#[test]
fn a_full_disk_that_stops_even_the_journal_file_keeps_the_lock_file() {
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    fs.insert_file(
        "/m/project_a.md",
        "---\nname: A\ndescription: first words\ntype: project\n---\n\nold\n",
    );
    fs.insert_file("/m/MEMORY.md", "- [A](project_a.md) — first words\n");
    let mut host = Host::new(fs);
    let full = std::rc::Rc::clone(&host.no_space);
    host.on(common::Op::WriteFile, "/m/MEMORY.md", move || {
        full.set(true)
    });
    let no_space = std::rc::Rc::clone(&host.no_space);
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    let again = SaveInput {
        description: "second words".into(),
        replace: true,
        ..input("A")
    };
    let err = block_on(s.save(again)).unwrap_err();
    assert!(
        err.cause.as_ref().is_some_and(|c| c.has_code("ENOSPC")),
        "{err:?}"
    );
    // Nothing but the lock file records that the index is behind the file.
    assert!(text(fs, "/m/project_a.md")
        .unwrap()
        .contains("second words"));
    assert!(text(fs, "/m/MEMORY.md").unwrap().contains("first words"));
    assert!(text(fs, "/m/.memdir-journal").is_none());
    let lock = text(fs, LOCK).expect("the lock file stays");
    assert!(lock.ends_with("\njournal private project_a.md"), "{lock:?}");
    // Space is back; the lock is broken once stale, its line repaired by the breaker.
    no_space.set(false);
    fs.set_mtime(LOCK, T0);
    let next = store(
        Host::new(fs),
        TestClock::new(T0 + 31_000.0),
        StoreConfig::default(),
    );
    block_on(next.save(input("B"))).unwrap();
    let index = text(fs, "/m/MEMORY.md").unwrap();
    assert!(
        index.contains("- [A](project_a.md) — second words\n"),
        "{index}"
    );
    assert!(index.contains("(project_b.md)"), "{index}");
    assert!(text(fs, LOCK).is_none());
    assert!(text(fs, "/m/.memdir-journal").is_none());
}

/// Without a lock file (a host lock), a write journals in the journal file. A line already
/// there, whose repair cannot be done yet (its memory cannot be read), must outlive this
/// write: the write adds its own line and takes out only that one.
#[test]
fn a_write_journaled_in_the_file_keeps_the_lines_of_others() {
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    fs.insert_file("/m/.memdir-journal", "private project_stuck.md\n");
    // A directory where the memory should be: reading it fails, so the repair waits.
    block_on(fs.mkdir("/m/project_stuck.md")).unwrap();
    let mut host = Host::new(fs);
    host.host_lock = Some(false);
    let during = host.text_when_written("/m/MEMORY.md", fs, "/m/.memdir-journal");
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    block_on(s.save(input("A"))).unwrap();
    assert_eq!(
        during.borrow().as_deref(),
        Some("private project_stuck.md\nprivate project_a.md\n")
    );
    assert_eq!(
        text(fs, "/m/.memdir-journal").as_deref(),
        Some("private project_stuck.md\n")
    );
    assert!(text(fs, "/m/MEMORY.md").unwrap().contains("(project_a.md)"));
    // Once the memory can be read (a file in the directory's place), the next write repairs
    // its entry and the journal file goes.
    fs.insert_file(
        "/m/project_stuck.md",
        "---\nname: Stuck\ndescription: late\ntype: project\n---\n\nx\n",
    );
    block_on(s.save(input("B"))).unwrap();
    assert!(text(fs, "/m/.memdir-journal").is_none());
    let index = text(fs, "/m/MEMORY.md").unwrap();
    assert!(
        index.contains("- [Stuck](project_stuck.md) — late"),
        "{index}"
    );
}

/// A killed writer's stale lock carries `journal private project_orphan.md`. A store breaks it
/// but another process takes the freed lock first; the breaker times out and goes away (a CLI
/// call ends). The orphan's entry must still be repaired by the next writer: the breaker wrote
/// the line to the journal file before it removed the lock file.
#[test]
fn a_broken_locks_journal_survives_a_breaker_that_never_gets_the_lock() {
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    fs.insert_file(
        "/m/project_orphan.md",
        "---\nname: Orphan\ndescription: half saved\ntype: project\n---\n\nx\n",
    );
    fs.insert_file(
        LOCK,
        format!("h\n{}\n\njournal private project_orphan.md", T0 - 40_000.0),
    );
    fs.set_mtime(LOCK, T0 - 40_000.0);
    let removed = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = std::rc::Rc::clone(&removed);
    let mut host = Tap::new(fs);
    host.on_call = Some(std::rc::Rc::new(move |op, path: &str| {
        if path == LOCK && op == common::Op::Remove {
            seen.set(true);
        }
        if path == LOCK
            && op == common::Op::CreateExclusive
            && seen.get()
            && block_on(fs.read_file(LOCK)).is_err()
        {
            // Another process wins the race for the freed lock and holds it a while.
            fs.insert_file(LOCK, format!("other\n{T0}\n"));
            fs.set_mtime(LOCK, T0);
        }
    }));
    let config = StoreConfig {
        lock_timeout_ms: 2_000,
        lock_stale_ms: 30_000,
        ..StoreConfig::default()
    };
    let breaker = Store::new(
        host,
        TestClock::new(T0),
        NoTelemetry,
        "/m/",
        WriteMode::Auto,
        config,
    );
    let err = block_on(breaker.save(input("B"))).unwrap_err();
    assert_eq!(err.code, Code::LockTimeout, "{err:?}");
    assert!(removed.get(), "the breaker removed the stale lock");
    drop(breaker);
    // The other process finishes and releases its lock; the next writer repairs the entry.
    block_on(fs.remove(LOCK)).unwrap();
    let next = Store::new(
        Tap::new(fs),
        TestClock::new(T0 + 1.0),
        NoTelemetry,
        "/m/",
        WriteMode::Auto,
        config,
    );
    block_on(next.save(input("D"))).unwrap();
    let index = block_on(fs.read_file("/m/MEMORY.md")).unwrap();
    assert!(index.contains("project_orphan.md"), "{index}");
    assert!(
        block_on(fs.read_file("/m/.memdir-journal")).is_err(),
        "journal cleared"
    );
}

// ---------- the index entry appended ----------

/// A host over `fs` that declares atomic appends (`nodeFs` does; `MemFs` does not, so the
/// rewrite stays the path of the other tests).
fn appending(fs: &MemFs) -> Host<'_> {
    let mut host = Host::new(fs);
    host.caps.atomic_append = true;
    host
}

const OLD_INDEX: &str = "# Index\n- [Old](project_old.md) — kept\n";

#[test]
fn a_new_entry_is_appended_and_a_changed_one_rewrites_the_index() {
    let fs = MemFs::new();
    fs.insert_file("/m/MEMORY.md", OLD_INDEX);
    let host = appending(&fs);
    let calls = host.clone();
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    block_on(s.save(input("A"))).unwrap();
    let after_a = format!("{OLD_INDEX}- [A](project_a.md) — about A\n");
    assert_eq!(text(&fs, "/m/MEMORY.md").unwrap(), after_a);
    let index_calls = |ops: &[common::Op]| {
        calls
            .paths_of(ops)
            .into_iter()
            .filter(|p| p.starts_with("/m/MEMORY.md"))
            .count()
    };
    assert_eq!(index_calls(&[common::Op::AppendFile]), 1);
    assert_eq!(
        index_calls(&[common::Op::WriteFile, common::Op::Rename]),
        0,
        "appended, not rewritten"
    );
    // A changed entry: the index is rewritten, the line replaced in place.
    calls.clear_calls();
    let again = SaveInput {
        description: "new words".into(),
        replace: true,
        ..input("A")
    };
    block_on(s.save(again)).unwrap();
    assert_eq!(
        text(&fs, "/m/MEMORY.md").unwrap(),
        format!("{OLD_INDEX}- [A](project_a.md) — new words\n")
    );
    assert_eq!(index_calls(&[common::Op::AppendFile]), 0);
    assert!(index_calls(&[common::Op::WriteFile]) >= 1);
    // An index whose last line has no end, and a missing index: rewritten (written) whole.
    for (before, after) in [
        (
            "- [Old](project_old.md) — kept",
            "- [Old](project_old.md) — kept\n- [B](project_b.md) — about B\n",
        ),
        ("", "- [B](project_b.md) — about B\n"),
    ] {
        let fs = MemFs::new();
        if !before.is_empty() {
            fs.insert_file("/m/MEMORY.md", before);
        }
        let host = appending(&fs);
        let calls = host.clone();
        let s = store(host, TestClock::new(T0), StoreConfig::default());
        block_on(s.save(input("B"))).unwrap();
        assert_eq!(text(&fs, "/m/MEMORY.md").unwrap(), after);
        assert_eq!(calls.count(&[common::Op::AppendFile]), 0, "{before:?}");
    }
}

#[test]
fn a_failed_append_puts_the_index_back_and_takes_the_file_back() {
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    fs.insert_file("/m/MEMORY.md", OLD_INDEX);
    let mut host = appending(fs);
    // The append writes part of the line, then fails.
    host.on(common::Op::AppendFile, "/m/MEMORY.md", move || {
        block_on(fs.append_file("/m/MEMORY.md", "- [A](pro")).unwrap();
    });
    host.denied = vec![common::Op::AppendFile];
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    let err = block_on(s.save(input("A"))).unwrap_err();
    assert!(
        err.cause.as_ref().is_some_and(|c| c.has_code("EACCES")),
        "{err:?}"
    );
    assert_eq!(text(fs, "/m/MEMORY.md").unwrap(), OLD_INDEX);
    assert!(
        text(fs, "/m/project_a.md").is_none(),
        "the new file is taken back"
    );
    assert!(text(fs, LOCK).is_none());
    assert!(text(fs, "/m/.memdir-journal").is_none());
}

/// The disk fills up in the middle of the append: part of the line is in the index, and
/// neither putting the index back nor writing the journal file can be done. The lock file
/// keeps the journal line; once the lock is stale and there is space again, the writer that
/// breaks it takes the part off and puts the whole entry in.
#[test]
fn an_append_cut_short_is_finished_by_the_next_writer() {
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    fs.insert_file("/m/MEMORY.md", OLD_INDEX);
    let mut host = appending(fs);
    let full = std::rc::Rc::clone(&host.no_space);
    host.on(common::Op::AppendFile, "/m/MEMORY.md", move || {
        // The write that got in before the disk was full.
        block_on(fs.append_file("/m/MEMORY.md", "- [A](proj")).unwrap();
        full.set(true);
    });
    let no_space = std::rc::Rc::clone(&host.no_space);
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    let err = block_on(s.save(input("A"))).unwrap_err();
    assert!(
        err.cause.as_ref().is_some_and(|c| c.has_code("ENOSPC")),
        "{err:?}"
    );
    assert_eq!(
        text(fs, "/m/MEMORY.md").unwrap(),
        format!("{OLD_INDEX}- [A](proj")
    );
    assert!(
        text(fs, "/m/project_a.md").is_some(),
        "the memory file stays"
    );
    let lock = text(fs, LOCK).expect("the lock file stays");
    assert!(lock.ends_with("\njournal private project_a.md"), "{lock:?}");
    no_space.set(false);
    fs.set_mtime(LOCK, T0);
    let next = store(
        appending(fs),
        TestClock::new(T0 + 31_000.0),
        StoreConfig::default(),
    );
    block_on(next.save(input("B"))).unwrap();
    assert_eq!(
        text(fs, "/m/MEMORY.md").unwrap(),
        format!("{OLD_INDEX}- [A](project_a.md) — about A\n- [B](project_b.md) — about B\n")
    );
    assert!(text(fs, LOCK).is_none());
    assert!(text(fs, "/m/.memdir-journal").is_none());
}

// ---------- cut appends the repair must still recognise ----------

/// A cut append whose repair fails once (a transient write error) must not be ended by that
/// writer's own index write: the later repair would no longer see it as a cut, and the part
/// would stay in the index for good.
#[test]
fn a_cut_append_is_not_ended_by_a_save_whose_repair_failed() {
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    // State left by a writer whose append of A was cut and could not be undone.
    let s0 = store(appending(fs), TestClock::new(T0), StoreConfig::default());
    block_on(s0.save(input("A"))).unwrap();
    fs.insert_file("/m/MEMORY.md", format!("{OLD_INDEX}- [A](proj"));
    fs.insert_file("/m/.memdir-journal", "private project_a.md\n");
    // Writer 2: its first write of the index (the repair's) fails, the next one (its own) works.
    let mut host = appending(fs);
    let full = std::rc::Rc::clone(&host.no_space);
    let n = std::rc::Rc::new(std::cell::Cell::new(0));
    host.on_call = Some(std::rc::Rc::new(move |op, path: &str| {
        let index = op == common::Op::WriteFile && path.starts_with("/m/MEMORY.md");
        full.set(index && n.get() == 0);
        if index {
            n.set(n.get() + 1);
        }
    }));
    let s = store(host, TestClock::new(T0), StoreConfig::default());
    // Succeeding or refused (nothing written), writer 2 must not end the cut line.
    let _ = block_on(s.save(input("B")));
    // Writer 3: a healthy host; the journal entry for A is repaired now.
    let s3 = store(appending(fs), TestClock::new(T0), StoreConfig::default());
    block_on(s3.save(input("C"))).unwrap();
    let index = text(fs, "/m/MEMORY.md").unwrap();
    assert!(
        !index.contains("- [A](proj\n"),
        "garbage line left in the index:\n{index}"
    );
}

/// The state a writer leaves when its append of the memory "Café" is cut after `cut` (a power
/// cut or a full disk at a block boundary) and cannot be undone; then the next writer saves B.
fn index_after_a_cut_and_the_next_save(cut: &[u8]) -> String {
    let fs: &'static MemFs = Box::leak(Box::new(MemFs::new()));
    let s0 = store(appending(fs), TestClock::new(T0), StoreConfig::default());
    let cafe = SaveInput {
        file: Some("project_cafe.md".into()),
        ..input("Café")
    };
    block_on(s0.save(cafe)).unwrap();
    let mut torn = OLD_INDEX.as_bytes().to_vec();
    torn.extend_from_slice(cut);
    fs.insert_file("/m/MEMORY.md", &torn);
    fs.insert_file("/m/.memdir-journal", "private project_cafe.md\n");
    let s = store(appending(fs), TestClock::new(T0), StoreConfig::default());
    block_on(s.save(input("B"))).unwrap();
    text(fs, "/m/MEMORY.md").unwrap()
}

/// Cut inside the two bytes of `é`: read back, the part ends in U+FFFD, no prefix of the
/// entry's line; the repair takes it off all the same.
#[test]
fn an_append_cut_inside_a_character_is_taken_off() {
    let index = index_after_a_cut_and_the_next_save(b"- [Caf\xC3");
    assert_eq!(
        index,
        format!(
            "{OLD_INDEX}- [Café](project_cafe.md) — about Café\n- [B](project_b.md) — about B\n"
        )
    );
}

/// A power cut after the size grew but before the data reached the disk (XFS, ext4
/// `data=writeback`): the tail is NUL bytes; the repair takes them off.
#[test]
fn an_append_cut_as_nul_bytes_is_taken_off() {
    let index = index_after_a_cut_and_the_next_save(&[0u8; 40]);
    assert!(!index.contains('\0'), "{index:?}");
}
