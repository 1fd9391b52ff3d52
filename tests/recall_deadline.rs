//! Recall under a filesystem that stops answering (issue #19 item 5): the candidate step's host
//! calls are bounded by the recall timeout and the caller's abort, so a hung host never holds a
//! recall past either. And one deadline covers the whole recall (issue #13): the embedder or
//! LLM gets only what the index step left of the timeout.

mod common;

use common::llm::{Script, ScriptedLlm};
use common::{block_on, TestClock};
use memdir::host::{
    Clock, DirEntry, Embedder, FileStat, FileSystem, FsCapabilities, HostResult, NoLlm,
};
use memdir::recall::{
    AbortFlag, AnsweredBy, FindOptions, LiveIndex, RecallConfig, RecallOutcome, Recaller,
};
use memdir::store::{Store, StoreConfig, WriteMode};
use memdir::MemFs;
use std::cell::Cell;

/// A `MemFs` whose listing and stats can be made to hang forever.
struct Hanging<'a> {
    inner: &'a MemFs,
    hang: Cell<bool>,
}

impl Hanging<'_> {
    async fn gate(&self) {
        if self.hang.get() {
            std::future::pending::<()>().await;
        }
    }
}

impl FileSystem for Hanging<'_> {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.gate().await;
        self.inner.read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.inner.write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.gate().await;
        self.inner.read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.gate().await;
        self.inner.stat(path).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        self.inner.mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        self.inner.remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        FsCapabilities::default()
    }
}

/// A clock whose timers never fire: only an abort can end a wait.
struct Frozen;

impl Clock for Frozen {
    fn now_ms(&self) -> f64 {
        1_700_000_000_000.0
    }
    async fn sleep(&self, _ms: u32) {
        std::future::pending::<()>().await;
    }
}

fn memories() -> MemFs {
    let fs = MemFs::new();
    fs.insert_file(
        "/m/feedback_pnpm.md",
        "---\nname: Uses pnpm\ndescription: Install packages with pnpm, never npm\ntype: feedback\n---\nbody\n",
    );
    fs.insert_file(
        "/m/project_release.md",
        "---\nname: Release train\ndescription: Releases are cut every second Tuesday\ntype: project\n---\nbody\n",
    );
    fs
}

#[test]
fn a_hung_listing_times_out_and_answers_from_the_index_as_it_stands() {
    let fs = memories();
    let host = Hanging {
        inner: &fs,
        hang: Cell::new(false),
    };
    let store = Store::new(
        host,
        TestClock::new(1_700_000_000_000.0),
        memdir::NoTelemetry,
        "/m/",
        WriteMode::Auto,
        StoreConfig::default(),
    );
    let config = RecallConfig {
        timeout_ms: 1_000,
        ..RecallConfig::default()
    };
    let live = LiveIndex::new("/m/", config.ranker.clone());
    let recaller = Recaller::new(&store, None::<&NoLlm>, &config).with_index(&live);
    let warm =
        block_on(recaller.find_relevant("install packages with pnpm", FindOptions::default()))
            .unwrap();
    assert_eq!(warm.outcome, RecallOutcome::Ok);
    assert_eq!(warm.memories.len(), 1);

    // The filesystem stops answering: recall ends at its timeout with the ranker's answer over
    // what the index already holds.
    store.fs().hang.set(true);
    let started = store.clock().now_ms();
    let cut =
        block_on(recaller.find_relevant("install packages with pnpm", FindOptions::default()))
            .unwrap();
    assert_eq!(cut.outcome, RecallOutcome::Timeout);
    assert_eq!(cut.memories.len(), 1);
    assert!(cut.memories[0].path.ends_with("feedback_pnpm.md"));
    assert!(store.clock().now_ms() - started <= 1_000.0 + 1.0);

    // It recovers when the filesystem does.
    store.fs().hang.set(false);
    let again = block_on(recaller.find_relevant("release train", FindOptions::default())).unwrap();
    assert_eq!(again.outcome, RecallOutcome::Ok);
    assert!(again.memories[0].path.ends_with("project_release.md"));
}

#[test]
fn an_abort_ends_a_recall_stuck_in_the_host_even_when_no_timer_fires() {
    let fs = memories();
    let host = Hanging {
        inner: &fs,
        hang: Cell::new(true),
    };
    let store = Store::new(
        host,
        Frozen,
        memdir::NoTelemetry,
        "/m/",
        WriteMode::Auto,
        StoreConfig::default(),
    );
    let config = RecallConfig::default();
    let recaller = Recaller::new(&store, None::<&NoLlm>, &config);
    let flag = AbortFlag::new();
    flag.abort();
    let options = FindOptions {
        abort: Some(flag),
        ..FindOptions::default()
    };
    let out = block_on(recaller.find_relevant("install packages with pnpm", options)).unwrap();
    assert_eq!(out.outcome, RecallOutcome::Aborted);
    assert!(out.memories.is_empty());
}

/// A `MemFs` whose directory listing takes `ms` of the shared test clock's time.
struct Slow<'a> {
    inner: &'a MemFs,
    clock: &'a TestClock,
    ms: f64,
}

impl FileSystem for Slow<'_> {
    async fn read_file(&self, path: &str) -> HostResult<String> {
        self.inner.read_file(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> HostResult<()> {
        self.inner.write_file(path, data).await
    }
    async fn read_dir(&self, path: &str) -> HostResult<Vec<DirEntry>> {
        self.clock.now.set(self.clock.now.get() + self.ms);
        self.inner.read_dir(path).await
    }
    async fn stat(&self, path: &str) -> HostResult<FileStat> {
        self.inner.stat(path).await
    }
    async fn mkdir(&self, path: &str) -> HostResult<()> {
        self.inner.mkdir(path).await
    }
    async fn remove(&self, path: &str) -> HostResult<()> {
        self.inner.remove(path).await
    }
    fn capabilities(&self) -> FsCapabilities {
        FsCapabilities::default()
    }
}

/// An embedder that never answers.
struct HangingEmbedder;

impl Embedder for HangingEmbedder {
    fn model(&self) -> &str {
        "hangs"
    }
    async fn embed(&self, _texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
        std::future::pending().await
    }
}

/// A recall over a listing that takes 700 ms of a 1,000 ms timeout, then a host stage that
/// never answers: it ends at the recall's deadline (1,000 ms after it began), not 1,000 ms after
/// the stage began, with the ranker's answer and outcome `timeout`.
fn one_deadline(stage: &str) {
    let fs = memories();
    let clock = TestClock::new(1_700_000_000_000.0);
    let host = Slow {
        inner: &fs,
        clock: &clock,
        ms: 700.0,
    };
    let store = Store::new(
        host,
        &clock,
        memdir::NoTelemetry,
        "/m/",
        WriteMode::Auto,
        StoreConfig::default(),
    );
    let config = RecallConfig {
        timeout_ms: 1_000,
        ..RecallConfig::default()
    };
    let llm = ScriptedLlm::always(Script::Hang);
    let recaller = Recaller::new(&store, (stage == "llm").then_some(&llm), &config)
        .with_embedder((stage == "embedder").then_some(&HangingEmbedder));
    let started = clock.now_ms();
    let out =
        block_on(recaller.find_relevant("install packages with pnpm", FindOptions::default()))
            .unwrap();
    let took = clock.now_ms() - started;
    assert_eq!(out.outcome, RecallOutcome::Timeout, "{stage}");
    assert_eq!(out.answered_by, AnsweredBy::Lexical, "{stage}");
    assert!(
        out.memories[0].path.ends_with("feedback_pnpm.md"),
        "{stage}"
    );
    // The listing's 700 ms count: the stage got the remaining 300 (each stage getting the
    // whole timeout took 1,700).
    assert!(took >= 700.0, "{stage}: {took}");
    assert!(took <= 1_000.0 + 1.0, "{stage}: the recall took {took} ms");
    if stage == "llm" {
        assert_eq!(llm.requests.borrow().len(), 1);
    }
}

#[test]
fn one_deadline_covers_the_index_step_and_the_llm() {
    one_deadline("llm");
}

#[test]
fn one_deadline_covers_the_index_step_and_the_embedder() {
    one_deadline("embedder");
}
