//! Recall over the whole directory (issue #13 item 2): every memory is a candidate, the index a
//! `Memdir` keeps is updated incrementally (by path, size and mtime), its own writes are seen at
//! once, and a host `watch` lets a warm recall skip the stat pass. Host calls are counted.

mod common;

use common::{block_on, Op, Tap, TestClock, Watch};
use memdir::host::{FileSystem, HostResult, Llm, LlmRequest, WatchEvent};
use memdir::recall::{AnsweredBy, FindOptions};
use memdir::store::SaveInput;
use memdir::{MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry};
use std::cell::RefCell;
use std::rc::Rc;

const NOW: f64 = 1_800_000_000_000.0;

/// A `MemFs` that counts reads (whole or head), stats and listings; clones share the counts.
type CountingFs = Tap<Rc<MemFs>>;

fn counting_fs(inner: Rc<MemFs>, watch: Watch) -> CountingFs {
    let mut fs = Tap::new(inner);
    fs.watch = watch;
    fs
}

/// (reads of memories, stats, listings) since the last `clear_calls`. (Reading the persisted
/// index cache, `.memdir-index`, is not a memory read: see tests/index_cache.rs.)
fn calls(fs: &CountingFs) -> (usize, usize, usize) {
    (
        fs.paths_of(&[Op::ReadFile, Op::ReadHead])
            .iter()
            .filter(|p| p.ends_with(".md"))
            .count(),
        fs.count(&[Op::Stat, Op::Lstat]),
        fs.count(&[Op::ReadDir]),
    )
}

fn memory(description: &str, body: &str) -> String {
    format!("---\nname: note\ndescription: {description}\ntype: project\n---\n{body}\n")
}

/// Writes a [`memory`] at `path` of `fs` (now, unless `set_mtime` follows).
fn put(fs: &MemFs, path: &str, description: &str, body: &str) {
    fs.insert_file(path, memory(description, body));
}

/// `n` filler memories, file `i` written at `NOW - (n - i)` seconds (so `note_00000` is the
/// oldest).
fn filler(fs: &MemFs, n: usize) {
    for i in 0..n {
        let path = format!("/mem/note_{i:05}.md");
        let description = format!("Miscellaneous project note number {i}");
        put(fs, &path, &description, "Nothing in particular.");
        fs.set_mtime(&path, NOW - (n - i) as f64 * 1000.0);
    }
}

/// A directory `/mem/` of `n` [`filler`] memories.
fn directory(n: usize) -> Rc<MemFs> {
    let fs = Rc::new(MemFs::new());
    filler(&fs, n);
    fs
}

type Mem<L = NoLlm> = Memdir<CountingFs, TestClock, L, NoTelemetry>;

/// A `Memdir` over `/mem/` of `fs`, asking `llm` (if any).
fn memdir_asking<L: Llm>(fs: CountingFs, llm: Option<L>) -> Mem<L> {
    Memdir::new(
        fs,
        TestClock::new(NOW),
        llm,
        NoTelemetry,
        MemdirConfig::new("/mem/"),
    )
}

fn memdir(fs: CountingFs) -> Mem {
    memdir_asking(fs, None)
}

/// A `Memdir` over `fs` through a counting host that answers `watch` as asked, and that host
/// (a clone: it shares the counts and the watch).
fn counted(fs: &Rc<MemFs>, watch: Watch) -> (Mem, CountingFs) {
    let counting = counting_fs(Rc::clone(fs), watch);
    (memdir(counting.clone()), counting)
}

fn recall(m: &Mem, query: &str) -> Vec<String> {
    block_on(m.find_relevant(query, FindOptions::default()))
        .unwrap()
        .memories
        .into_iter()
        .map(|r| r.path)
        .collect()
}

#[test]
fn the_oldest_of_ten_thousand_is_found_when_it_alone_matches() {
    for (label, mtime) in [("oldest", NOW - 1e9), ("newest", NOW)] {
        let fs = directory(9_999);
        put(
            &fs,
            "/mem/kafka_topics.md",
            "Kafka topic naming for payment events",
            "Topics are named payments.<event>.v1.",
        );
        fs.set_mtime("/mem/kafka_topics.md", mtime);
        let m = memdir(counting_fs(fs, Watch::None));
        assert_eq!(
            recall(&m, "which kafka topic do payment events go to"),
            ["/mem/kafka_topics.md"],
            "{label}"
        );
        assert_eq!(m.recall_index().len(), 10_000);
    }
}

#[test]
fn words_past_the_scans_thirty_lines_count() {
    let fs = directory(50);
    // Two memories alike but for a word on line 46 of one: only the index's 16 KB head sees it.
    // The other is newer, so it would rank first on a tie.
    let far = format!("{}Use zstd for them.", "\n".repeat(40));
    put(&fs, "/mem/far.md", "Archive settings", &far);
    fs.set_mtime("/mem/far.md", NOW - 1e9);
    put(&fs, "/mem/near.md", "Archive settings", "Use them.");
    let m = memdir(counting_fs(fs, Watch::None));
    let found = recall(&m, "zstd archive settings");
    assert_eq!(found.first().map(String::as_str), Some("/mem/far.md"));
}

/// An LLM that records the manifests it is shown and picks nothing.
#[derive(Clone, Default)]
struct Recorder {
    manifests: Rc<RefCell<Vec<String>>>,
}

impl Llm for Recorder {
    async fn complete(&self, request: &LlmRequest) -> HostResult<String> {
        let content = &request.messages[0].content;
        let manifest = content
            .split("Available memories:\n")
            .nth(1)
            .unwrap_or_default();
        self.manifests.borrow_mut().push(manifest.to_owned());
        Ok(r#"{"selected_memories":["kafka_topics.md"]}"#.into())
    }
}

#[test]
fn the_llm_is_shown_the_rankers_best_of_the_whole_directory() {
    let fs = directory(1_000);
    put(
        &fs,
        "/mem/kafka_topics.md",
        "Kafka topic naming for payment events",
        "",
    );
    fs.set_mtime("/mem/kafka_topics.md", NOW - 1e9);
    let llm = Recorder::default();
    let manifests = Rc::clone(&llm.manifests);
    let m = memdir_asking(counting_fs(fs, Watch::None), Some(llm.clone()));
    let r = block_on(m.find_relevant("kafka topic for payment events", FindOptions::default()))
        .unwrap();
    assert_eq!(r.answered_by, AnsweredBy::LlmPrefilter);
    assert_eq!(r.memories[0].path, "/mem/kafka_topics.md");
    let shown = manifests.borrow()[0].clone();
    assert_eq!(shown.lines().count(), 200);
    assert!(shown.lines().next().unwrap().contains("kafka_topics.md"));

    // Within the budget: every memory, newest first (the reference's manifest).
    let m = memdir_asking(counting_fs(directory(5), Watch::None), Some(llm));
    let r = block_on(m.find_relevant("kafka", FindOptions::default())).unwrap();
    assert_eq!(r.answered_by, AnsweredBy::Llm);
    let shown = manifests.borrow()[1].clone();
    let order: Vec<&str> = shown
        .lines()
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "note_00004.md",
            "note_00003.md",
            "note_00002.md",
            "note_00001.md",
            "note_00000.md"
        ]
    );
}

#[test]
fn changes_behind_the_instances_back_are_picked_up() {
    let fs = directory(100);
    let (m, counting) = counted(&fs, Watch::None);
    assert!(recall(&m, "grafana dashboards for billing").is_empty());
    assert_eq!(calls(&counting).0, 100);

    // Rewritten on disk: new size and mtime, so it is read again (and only it).
    counting.clear_calls();
    put(
        &fs,
        "/mem/note_00042.md",
        "Grafana dashboards for billing live in the ops folder",
        "",
    );
    assert_eq!(
        recall(&m, "grafana dashboards for billing"),
        ["/mem/note_00042.md"]
    );
    assert_eq!(calls(&counting).0, 1);

    // Same size, new mtime: read again.
    counting.clear_calls();
    put(
        &fs,
        "/mem/note_00042.md",
        "Grafana dashboards for invoice live in the ops folder",
        "",
    );
    assert_eq!(recall(&m, "invoice dashboards"), ["/mem/note_00042.md"]);
    assert_eq!(calls(&counting).0, 1);

    // Deleted: gone from the index and from the answers.
    counting.clear_calls();
    put(&fs, "/mem/x/y.md", "Vault holds the secrets", "");
    assert_eq!(recall(&m, "vault secrets"), ["/mem/x/y.md"]);
    block_on(fs.remove("/mem/x/y.md")).unwrap();
    assert!(recall(&m, "vault secrets").is_empty());
    assert_eq!(m.recall_index().len(), 100);
}

#[test]
fn an_unchanged_directory_costs_no_read_and_with_a_watch_no_stat() {
    for watch in [Watch::None, Watch::Forward] {
        let (m, counting) = counted(&directory(300), watch);
        recall(&m, "deploy checklist");
        assert_eq!(calls(&counting).0, 300, "the first recall reads every head");
        counting.clear_calls();
        recall(&m, "deploy checklist");
        recall(&m, "release notes");
        let (reads, stats, lists) = calls(&counting);
        assert_eq!(reads, 0);
        if watch == Watch::None {
            assert_eq!((stats, lists), (600, 2), "one stat pass per recall");
        } else {
            assert_eq!((stats, lists), (0, 0), "nothing reported, nothing stat'ed");
        }
    }
}

#[test]
fn the_instances_own_writes_are_seen_without_a_stat_pass() {
    // A watch that never reports anything: only the instance's own notes can make the save
    // visible.
    let (m, counting) = counted(&directory(300), Watch::Manual);
    assert!(recall(&m, "pnpm workspaces").is_empty());
    let saved = block_on(m.save(SaveInput {
        name: "Prefers pnpm".into(),
        description: "Uses pnpm workspaces in every repository".into(),
        memory_type: "feedback".into(),
        body: "Never npm.".into(),
        ..SaveInput::default()
    }))
    .unwrap();
    let memdir::store::SaveOutcome::Saved(saved) = saved else {
        panic!("not saved");
    };
    counting.clear_calls();
    assert_eq!(recall(&m, "pnpm workspaces"), vec![saved.path.clone()]);
    let (reads, stats, lists) = calls(&counting);
    assert_eq!((reads, lists), (1, 0));
    assert!(stats <= 1, "{stats} stats");

    // Deleted by the instance: gone at once.
    let file = saved.path.trim_start_matches("/mem/").to_owned();
    block_on(m.delete(&file)).unwrap();
    counting.clear_calls();
    assert!(recall(&m, "pnpm workspaces").is_empty());
    assert!(calls(&counting).1 <= 1);
}

#[test]
fn a_watch_notification_invalidates() {
    let fs = directory(50);
    let (m, counting) = counted(&fs, Watch::Manual);
    recall(&m, "anything");

    // Changed behind the instance's back and not reported: the watch is trusted.
    put(&fs, "/mem/note_00007.md", "Terraform state lives in S3", "");
    assert!(recall(&m, "terraform state").is_empty());
    // Reported by path: only that path is looked at.
    counting.clear_calls();
    counting.send(WatchEvent::Changed("note_00007.md"));
    assert_eq!(recall(&m, "terraform state"), ["/mem/note_00007.md"]);
    assert_eq!(calls(&counting), (1, 1, 0));

    // Reported without a path: a full stat pass, reading only what changed.
    put(&fs, "/mem/sub/new.md", "Vault holds the secrets", "");
    assert!(recall(&m, "vault secrets").is_empty());
    counting.clear_calls();
    counting.send(WatchEvent::Unknown);
    assert_eq!(recall(&m, "vault secrets"), ["/mem/sub/new.md"]);
    assert_eq!(calls(&counting).0, 1);
    assert_eq!(calls(&counting).1, 51);

    // A reported directory: a full pass too (its files went away with it).
    block_on(fs.remove("/mem/sub/new.md")).unwrap();
    counting.send(WatchEvent::Changed("/mem/sub"));
    assert!(recall(&m, "vault secrets").is_empty());

    // The watch broke: back to a stat pass per recall.
    counting.send(WatchEvent::Lost);
    recall(&m, "anything");
    counting.clear_calls();
    put(&fs, "/mem/note_00008.md", "Sentry alerts go to on-call", "");
    assert_eq!(recall(&m, "sentry alerts"), ["/mem/note_00008.md"]);
    assert_eq!(calls(&counting).1, 50);
}

#[test]
fn a_symlink_in_the_directory_means_a_stat_pass_per_recall_despite_the_watch() {
    // A change behind a link (here: to the file the link leads to, outside any watched path
    // the link itself is in) is not reported by a watch of the directory, so the watch cannot
    // be trusted: every recall stats, as without one.
    for link in [false, true] {
        let fs = directory(20);
        put(&fs, "/mem/real/target.md", "Placeholder", "");
        if link {
            fs.symlink("/mem/real/target.md", "/mem/linked.md");
        }
        let (m, counting) = counted(&fs, Watch::Manual);
        recall(&m, "anything");
        // Changed where the link leads, and not reported.
        put(
            &fs,
            "/mem/real/target.md",
            "Grafana dashboards are provisioned from code",
            "",
        );
        counting.clear_calls();
        let found = recall(&m, "grafana dashboards provisioned");
        let stats = calls(&counting).1;
        if link {
            assert!(found.contains(&"/mem/linked.md".to_owned()), "{found:?}");
            assert!(stats >= 21, "{stats} stats: a full pass");
        } else {
            // Without a link the watch is trusted: the unreported change is not seen.
            assert!(found.is_empty(), "{found:?}");
            assert_eq!(stats, 0);
        }
    }
}

#[test]
fn a_watching_host_without_lstat_gets_a_stat_pass_per_recall() {
    // Without `lstat` a reported link cannot be told from a file, so the watch is not used.
    for lstat in [true, false] {
        let fs = directory(20);
        let caps = memdir::host::FsCapabilities {
            lstat,
            ..fs.capabilities()
        };
        let mut counting = common::Tap::with_caps(Rc::clone(&fs), caps);
        counting.watch = Watch::Manual;
        let m = memdir(counting.clone());
        recall(&m, "anything");
        counting.clear_calls();
        recall(&m, "anything else");
        let stats = calls(&counting).1;
        assert_eq!(stats, if lstat { 0 } else { 20 }, "lstat: {lstat}");
    }
}

#[test]
fn memfs_reports_its_own_changes() {
    let fs = MemFs::new();
    fs.insert_file("/mem/a.md", "x");
    let seen: Rc<RefCell<Vec<String>>> = Rc::default();
    let sink = Rc::clone(&seen);
    let watch = block_on(fs.watch(
        "/mem/",
        Rc::new(move |e: WatchEvent<'_>| {
            if let WatchEvent::Changed(p) = e {
                sink.borrow_mut().push(p.to_owned());
            }
        }),
    ))
    .unwrap();
    block_on(fs.write_file("/mem/b.md", "y")).unwrap();
    block_on(fs.rename("/mem/b.md", "/mem/sub.md")).unwrap();
    block_on(fs.remove("/mem/a.md")).unwrap();
    fs.insert_file("/elsewhere/c.md", "z");
    drop(watch);
    fs.insert_file("/mem/late.md", "z");
    assert_eq!(*seen.borrow(), ["b.md", "b.md", "sub.md", "a.md"]);
    assert!(block_on(fs.watch("/nope/", Rc::new(|_: WatchEvent<'_>| {}))).is_err());
}
