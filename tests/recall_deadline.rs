//! Recall under a filesystem that stops answering (issue #19 item 5): the candidate step's host
//! calls are bounded by the recall timeout and the caller's abort, so a hung host never holds a
//! recall past either. And one deadline covers the whole recall (issue #13): the embedder or
//! LLM gets only what the index step left of the timeout.

mod common;

use common::llm::ScriptedLlm;
use common::{block_on, Op, Tap, TestClock};
use memdir::host::{
    Clock, Embedder, FileSystem, FsCapabilities, HostResult, Llm, LlmRequest, NoLlm,
};
use memdir::recall::{
    AbortFlag, AnsweredBy, FindOptions, LiveIndex, RecallConfig, RecallOutcome, Recaller,
};
use memdir::store::{Store, StoreConfig, WriteMode};
use memdir::{MemFs, NoTelemetry};
use std::rc::Rc;

/// A store of `/m/` over `fs`, timed by `clock`.
fn store<F: FileSystem, C: Clock>(fs: F, clock: C) -> Store<F, C, NoTelemetry> {
    Store::new(
        fs,
        clock,
        NoTelemetry,
        "/m/",
        WriteMode::Auto,
        StoreConfig::default(),
    )
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
    let host = Tap::with_caps(&fs, FsCapabilities::default());
    let store = store(host, TestClock::new(1_700_000_000_000.0));
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
    store.fs().hang_reads.set(true);
    let started = store.clock().now_ms();
    let cut =
        block_on(recaller.find_relevant("install packages with pnpm", FindOptions::default()))
            .unwrap();
    assert_eq!(cut.outcome, RecallOutcome::Timeout);
    assert_eq!(cut.memories.len(), 1);
    assert!(cut.memories[0].path.ends_with("feedback_pnpm.md"));
    assert!(store.clock().now_ms() - started <= 1_000.0 + 1.0);

    // It recovers when the filesystem does.
    store.fs().hang_reads.set(false);
    let again = block_on(recaller.find_relevant("release train", FindOptions::default())).unwrap();
    assert_eq!(again.outcome, RecallOutcome::Ok);
    assert!(again.memories[0].path.ends_with("project_release.md"));
}

#[test]
fn an_abort_ends_a_recall_stuck_in_the_host_even_when_no_timer_fires() {
    let fs = memories();
    let host = Tap::with_caps(&fs, FsCapabilities::default());
    host.hang_reads.set(true);
    let store = store(host, TestClock::frozen(1_700_000_000_000.0));
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

/// A `MemFs` claiming no optional capabilities whose directory listing takes `ms` of `clock`'s
/// time.
fn slow<'a>(inner: &'a MemFs, clock: &Rc<TestClock>, ms: f64) -> Tap<&'a MemFs> {
    let clock = Rc::clone(clock);
    let mut tap = Tap::with_caps(inner, FsCapabilities::default());
    tap.on_call = Some(Rc::new(move |op, _| {
        if op == Op::ReadDir {
            clock.now.set(clock.now.get() + ms);
        }
    }));
    tap
}

/// A host stage (embedder or LLM) that never answers and notes the clock's time when it is
/// called, so a test can see how much of the timeout was already spent.
struct HangingStage {
    clock: Rc<TestClock>,
    called_at: std::cell::Cell<Option<f64>>,
}

impl HangingStage {
    fn new(clock: &Rc<TestClock>) -> Self {
        HangingStage {
            clock: Rc::clone(clock),
            called_at: std::cell::Cell::new(None),
        }
    }
    async fn hang<T>(&self) -> HostResult<T> {
        self.called_at.set(Some(self.clock.now_ms()));
        std::future::pending().await
    }
}

impl Embedder for HangingStage {
    fn model(&self) -> &str {
        "hangs"
    }
    async fn embed(&self, _texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
        self.hang().await
    }
}

impl Llm for HangingStage {
    async fn complete(&self, _request: &LlmRequest) -> HostResult<String> {
        self.hang().await
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
/// never answers: the stage is called once the listing's 700 ms are spent, and the recall ends
/// at its deadline (1,000 ms after it began), not 1,000 ms after the stage began (1,700), with
/// the ranker's answer and outcome `timeout`.
fn one_deadline(stage: &str) {
    let fs = memories();
    let clock = Rc::new(TestClock::new(1_700_000_000_000.0));
    let host = slow(&fs, &clock, 700.0);
    let store = store(host, &*clock);
    let config = RecallConfig {
        timeout_ms: 1_000,
        ..RecallConfig::default()
    };
    let hanging = HangingStage::new(&clock);
    let recaller = Recaller::new(&store, (stage == "llm").then_some(&hanging), &config)
        .with_embedder((stage == "embedder").then_some(&hanging));
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
    // The premise: the listing spent 700 ms before the stage was called.
    let called = hanging.called_at.get().expect("the stage is called") - started;
    assert!(
        (700.0..1_000.0).contains(&called),
        "{stage}: called at {called} ms"
    );
    // The stage got what was left (300 ms), not the whole timeout.
    assert!(
        (1_000.0..=1_001.0).contains(&took),
        "{stage}: the recall took {took} ms"
    );
}

#[test]
fn one_deadline_covers_the_index_step_and_the_llm() {
    one_deadline("llm");
}

#[test]
fn one_deadline_covers_the_index_step_and_the_embedder() {
    one_deadline("embedder");
}

#[test]
fn a_hanging_embedder_before_the_llm_leaves_it_half_the_time() {
    let fs = memories();
    let clock = TestClock::new(1_700_000_000_000.0);
    let store = store(&fs, &clock);
    // Two memories over a budget of one: the pre-filter asks the embedder, which never answers.
    let config = RecallConfig {
        timeout_ms: 1_000,
        selector_budget: 1,
        ..RecallConfig::default()
    };
    let llm = ScriptedLlm::reply(r#"{"selected_memories":["feedback_pnpm.md"]}"#);
    let recaller = Recaller::new(&store, Some(&llm), &config).with_embedder(Some(&HangingEmbedder));
    let started = clock.now_ms();
    let out =
        block_on(recaller.find_relevant("install packages with pnpm", FindOptions::default()))
            .unwrap();
    // The embedder got half the timeout; the ranker pre-filtered and the LLM answered.
    assert_eq!(out.outcome, RecallOutcome::Ok);
    assert_eq!(out.answered_by, AnsweredBy::LlmPrefilter);
    assert!(out.memories[0].path.ends_with("feedback_pnpm.md"));
    assert_eq!(llm.requests.borrow().len(), 1);
    let took = clock.now_ms() - started;
    assert!((500.0..=501.0).contains(&took), "{took}");
}
