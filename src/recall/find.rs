//! Recall over a store: [`Recaller::find_relevant`], which memories help with a
//! query, and [`surface_memories`], reading the chosen ones for the model.
//!
//! Sequence: bring the whole-directory index up to date ([`Recaller::candidates`]); drop
//! memories already surfaced this session; ask the host's LLM, pre-filtering with the ranker
//! (fused with the embedder's cosine when there is one) when there are more candidates than
//! the selector budget; or answer with the ranker (fused likewise) when no LLM is configured.
//! One deadline (the recall timeout) and the caller's abort bound the whole. A failing, hanging
//! or babbling LLM never makes recall fail: the answer is the ranker's (when
//! `fallback_to_lexical`) or nothing. An abort always yields nothing.

use super::abort::AbortFlag;
use super::embed::{cosines, EmbedFailure};
use super::index::ScoredMemory;
use super::index::{LiveIndex, Pending, RecallIndex, WatchState};
use super::index_cache::{encode, Decoding, Hit, Listed, INDEX_CACHE_NAME};
use super::ranker::Field;
use super::selector::{build_selector_request, try_parse_selector_reply};
use super::semantic::{fuse, fused_order, Fused, FusionParams};
use super::surface::{surface_text, SurfacedMemory};
use super::RecallConfig;
use crate::future::{join, join_all};
use crate::host::{Clock, Embedder, FieldValue, FileSystem, Llm, NoEmbedder, NoLlm, Telemetry};
use crate::store::deadline::Cut;
use crate::store::listing::{MemoryFile, PathState, READ_CHUNK};
use crate::store::{Store, WriteMode};
use crate::types::{MemoryHeader, MAX_SELECTED};
use serde::Serialize;
use std::cell::RefCell;

/// Options of one recall.
#[derive(Clone, Debug)]
pub struct FindOptions {
    /// Tools the agent used successfully since the last user prompt (the selector skips their
    /// reference docs but keeps warnings about them).
    pub recent_tools: Vec<String>,
    /// Absolute paths already shown this session; never selected again.
    pub already_surfaced: Vec<String>,
    /// Most memories returned (default 5).
    pub limit: usize,
    /// The caller's cancellation; when set, recall returns nothing.
    pub abort: Option<AbortFlag>,
    /// Say why each memory was chosen ([`RecalledMemory::why`]); computed only when set.
    pub explain: bool,
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            recent_tools: Vec::new(),
            already_surfaced: Vec::new(),
            limit: MAX_SELECTED,
            abort: None,
            explain: false,
        }
    }
}

/// One recalled memory.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecalledMemory {
    /// Absolute path of the memory file.
    pub path: String,
    /// Its modification time from the scan, ms since the epoch.
    pub mtime_ms: f64,
    /// Why it was chosen, when [`FindOptions::explain`] asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<RecallWhy>,
}

/// Why a memory was recalled: its score, the query terms it matched (by field) and its cosine
/// to the query when an embedder answered.
///
/// ```
/// use memdir::recall::{FindOptions, RecallConfig, Recaller};
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoLlm, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let fs = MemFs::new();
/// fs.insert_file("/m/go.md", "---\nname: Go\ndescription: prefers Go for services\ntype: user\n---\n");
/// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let config = RecallConfig::default();
/// let options = FindOptions { explain: true, ..FindOptions::default() };
/// let recall = block_on(Recaller::new(&store, None::<&NoLlm>, &config)
///     .find_relevant("services in go", options)).unwrap();
/// let why = recall.memories[0].why.as_ref().unwrap();
/// let terms = &why.lexical.as_ref().unwrap().terms;
/// assert!(terms.iter().any(|t| t.term == "servic" && t.fields == ["description"]));
/// assert!(why.semantic.is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecallWhy {
    /// The score it was ranked by: fused when an embedder answered, else the calibrated
    /// lexical score (0 when the LLM chose a memory sharing no word with the query).
    pub score: f32,
    /// The query terms it matched; absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical: Option<LexicalWhy>,
    /// Its cosine to the query; present when an embedder answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<SemanticWhy>,
}

/// The lexical part of a [`RecallWhy`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LexicalWhy {
    /// The calibrated lexical score.
    pub score: f32,
    /// The matched terms (as indexed: lower-cased, stemmed), highest share first.
    pub terms: Vec<TermWhy>,
}

/// One matched query term and the fields (`filename`, `name`, `description`, `body`) it is in.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TermWhy {
    /// The term as indexed.
    pub term: String,
    /// Where it occurs.
    pub fields: Vec<&'static str>,
}

/// The semantic part of a [`RecallWhy`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SemanticWhy {
    /// Cosine of the memory's embedding to the query's.
    pub cosine: f32,
}

/// Who chose the memories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum AnsweredBy {
    /// The host's LLM, over every candidate.
    #[serde(rename = "llm")]
    Llm,
    /// The built-in ranker (no LLM configured, or the LLM failed and fallback is on).
    #[serde(rename = "lexical")]
    Lexical,
    /// The host's LLM, over the candidates the ranker pre-filtered to the selector budget.
    #[serde(rename = "llm+prefilter")]
    LlmPrefilter,
    /// The host's LLM, over the candidates pre-filtered to the selector budget by the fused
    /// lexical and embedding scores (an embedder is configured too).
    #[serde(rename = "llm+semantic-prefilter")]
    LlmSemanticPrefilter,
    /// Lexical and embedding scores fused (no LLM, an embedder configured); at least one
    /// chosen memory also matched lexically, or nothing passed the cut-off.
    #[serde(rename = "lexical+semantic")]
    LexicalSemantic,
    /// Fused scores where every chosen memory matched on its embedding alone.
    #[serde(rename = "semantic")]
    Semantic,
}

impl AnsweredBy {
    /// `llm`, `lexical`, `llm+prefilter`, `llm+semantic-prefilter`, `lexical+semantic` or
    /// `semantic`.
    pub fn as_str(self) -> &'static str {
        match self {
            AnsweredBy::Llm => "llm",
            AnsweredBy::Lexical => "lexical",
            AnsweredBy::LlmPrefilter => "llm+prefilter",
            AnsweredBy::LlmSemanticPrefilter => "llm+semantic-prefilter",
            AnsweredBy::LexicalSemantic => "lexical+semantic",
            AnsweredBy::Semantic => "semantic",
        }
    }
}

/// How the LLM (or, without one, the embedder) call went (`ok` when none was needed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecallOutcome {
    /// The selection (possibly empty) is a real answer.
    Ok,
    /// The LLM (or embedder) callback failed.
    Error,
    /// The LLM (or embedder) did not answer within the timeout.
    Timeout,
    /// The caller aborted.
    Aborted,
    /// The LLM answered something that is not a selection (or the embedder wrong vectors).
    InvalidReply,
}

impl RecallOutcome {
    /// `ok`, `error`, `timeout`, `aborted` or `invalid_reply`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecallOutcome::Ok => "ok",
            RecallOutcome::Error => "error",
            RecallOutcome::Timeout => "timeout",
            RecallOutcome::Aborted => "aborted",
            RecallOutcome::InvalidReply => "invalid_reply",
        }
    }
}

/// The answer of a recall.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recall {
    /// The chosen memories, most relevant first, without duplicates, at most `limit`.
    pub memories: Vec<RecalledMemory>,
    /// Who chose them.
    pub answered_by: AnsweredBy,
    /// How the LLM call went.
    pub outcome: RecallOutcome,
}

/// The event recall emits (fields: `answered_by`, `outcome`, `candidates`, `selected`,
/// `duration_ms`; never the query or any memory text).
pub const RECALL_EVENT: &str = "memdir_recall";

/// Recall over a borrowed [`Store`], with the host's LLM (none: the ranker answers) and the
/// recall tuning.
///
/// Two steps: [`Recaller::candidates`] brings a [`LiveIndex`] of the **whole** directory up to
/// date (every memory file the scan's walk finds, not only the newest 200; only files whose size
/// or mtime changed are read again), then `select` picks from it: the ranker alone, or the LLM
/// over a manifest of at most `selector_budget` memories: every candidate, newest first, when
/// the directory is within the budget (the reference's manifest), else the ranker's best
/// `selector_budget` of the whole directory (`llm+prefilter`).
///
/// ```
/// use memdir::recall::{FindOptions, RecallConfig, Recaller};
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoLlm, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let fs = MemFs::new();
/// fs.insert_file("/m/go.md", "---\nname: Go\ndescription: prefers Go for services\ntype: user\n---\n");
/// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let config = RecallConfig::default();
/// let recall = block_on(Recaller::new(&store, None::<&NoLlm>, &config)
///     .find_relevant("Go for the new services?", FindOptions::default())).unwrap();
/// assert_eq!(recall.memories[0].path, "/m/go.md");
/// ```
pub struct Recaller<
    'a,
    F: FileSystem,
    C: Clock,
    T: Telemetry,
    L: Llm = NoLlm,
    E: Embedder = NoEmbedder,
> {
    store: &'a Store<F, C, T>,
    llm: Option<&'a L>,
    embedder: Option<&'a E>,
    config: &'a RecallConfig,
    index: Option<&'a LiveIndex>,
}

/// More changed paths than this in one refresh: list and stat the directory instead of
/// stat'ing them one by one.
const MAX_PATH_PROBES: usize = 256;

impl<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm> Recaller<'a, F, C, T, L> {
    /// Recall over `store` with `llm` and `config`. Without [`Recaller::with_index`], each
    /// recall builds a fresh index of the whole directory (reads every memory's head).
    pub fn new(store: &'a Store<F, C, T>, llm: Option<&'a L>, config: &'a RecallConfig) -> Self {
        Recaller {
            store,
            llm,
            embedder: None,
            config,
            index: None,
        }
    }
}

/// Cache terms interned per stat batch of a first pass (a few hundred: well within the wait
/// for the batch's answer).
const INTERN_SLICE: usize = 400;

impl<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm, E: Embedder> Recaller<'a, F, C, T, L, E> {
    /// The same recall with a host embedder: without an LLM, the answer fuses the ranker's
    /// score with cosine (see [`crate::recall::semantic`]); a failing embedder falls back to
    /// the ranker, reported in [`Recall::outcome`]. With an LLM, the fused scores pick its
    /// manifest when the directory exceeds the selector budget (`llm+semantic-prefilter`) and
    /// answer when the LLM fails (`lexical+semantic` or `semantic`, with the LLM's outcome).
    pub fn with_embedder<E2: Embedder>(
        self,
        embedder: Option<&'a E2>,
    ) -> Recaller<'a, F, C, T, L, E2> {
        Recaller {
            store: self.store,
            llm: self.llm,
            embedder,
            config: self.config,
            index: self.index,
        }
    }

    /// Recall over `index`, kept between recalls (what [`crate::Memdir`] does): a warm recall
    /// re-reads only what changed, and stats nothing when the host's `watch` reported nothing.
    ///
    /// ```
    /// use memdir::recall::{FindOptions, LiveIndex, RecallConfig, Recaller};
    /// use memdir::store::{Store, StoreConfig, WriteMode};
    /// use memdir::{future::block_on, MemFs, NoLlm, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// fs.insert_file("/m/go.md", "---\ndescription: prefers Go for services\n---\n");
    /// let store = Store::new(&fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
    /// let config = RecallConfig::default();
    /// let live = LiveIndex::new("/m/", config.ranker.clone());
    /// let recaller = Recaller::new(&store, None::<&NoLlm>, &config).with_index(&live);
    /// block_on(recaller.find_relevant("services language", FindOptions::default())).unwrap();
    /// fs.insert_file("/m/rust.md", "---\ndescription: Rust for the parser\n---\n");
    /// let r = block_on(recaller.find_relevant("parser in rust", FindOptions::default())).unwrap();
    /// assert_eq!(r.memories[0].path, "/m/rust.md");
    /// assert_eq!(live.len(), 2);
    /// ```
    pub fn with_index(mut self, index: &'a LiveIndex) -> Self {
        self.index = Some(index);
        self
    }

    /// The memories relevant to `query`, chosen from the whole directory: [`Self::candidates`],
    /// then the selection. Never fails today (an unreadable directory has no memories); the
    /// `Result` leaves room for hosts that must report a failing listing.
    ///
    /// The candidate step's host calls are bounded by the recall timeout and the caller's abort:
    /// a filesystem that hangs makes recall answer from the index as it stands, with the ranker
    /// and outcome `timeout`; an abort answers nothing.
    pub async fn find_relevant(&self, query: &str, options: FindOptions) -> crate::Result<Recall> {
        let owned;
        let live = match self.index {
            Some(live) => live,
            None => {
                owned = LiveIndex::new(self.store.dir(), self.config.ranker.clone());
                &owned
            }
        };
        let deadline = self.store.clock().now_ms() + f64::from(self.config.timeout_ms);
        let stop = async {
            match &options.abort {
                Some(flag) => flag.aborted().await,
                None => std::future::pending().await,
            }
        };
        let outcome = match self
            .store
            .with_deadline(deadline, stop, self.candidates(live))
            .await
        {
            Ok(()) => return Ok(self.select(live.index(), query, &options, deadline).await),
            Err(Cut::Aborted) => RecallOutcome::Aborted,
            Err(Cut::TimedOut) => RecallOutcome::Timeout,
        };
        let chosen = if outcome == RecallOutcome::Timeout {
            let surfaced = sorted_surfaced(&options);
            let mut index = live.index().borrow_mut();
            index.rank(query, options.limit, &surfaced)
        } else {
            Vec::new()
        };
        Ok(Recall {
            memories: chosen
                .into_iter()
                .map(|h| RecalledMemory {
                    path: h.file_path,
                    mtime_ms: h.mtime_ms,
                    why: None,
                })
                .collect(),
            answered_by: AnsweredBy::Lexical,
            outcome,
        })
    }

    /// Recall over headers the caller already has (a cached scan, or several directories'
    /// scans merged). Never fails: LLM errors, timeouts, garbage and aborts are reported in
    /// [`Recall::outcome`].
    pub async fn find_relevant_in(
        &self,
        headers: Vec<MemoryHeader>,
        query: &str,
        options: &FindOptions,
    ) -> Recall {
        let surfaced = sorted_surfaced(options);
        let candidates: Vec<MemoryHeader> = headers
            .into_iter()
            .filter(|h| surfaced.binary_search(&h.file_path.as_str()).is_err())
            .collect();
        let index = RefCell::new(RecallIndex::from_headers(
            candidates,
            self.config.ranker.clone(),
        ));
        let deadline = self.store.clock().now_ms() + f64::from(self.config.timeout_ms);
        self.select(&index, query, options, deadline).await
    }

    /// The candidate step: bring `live` up to date with the directory. One refresh runs at a
    /// time (a second waits for the first, then does its own).
    ///
    /// On the first call, ask the host to `watch` the directory (if it has `lstat`). Then: with a running watch,
    /// stat only the paths reported changed (by the watch or this instance's writes) and read
    /// those again; a reported directory, or more than 256 paths, means a full pass. Without a
    /// watch (or when everything is reported changed), a full pass: list and stat every memory
    /// file (the scan's walk), read the heads of those whose (path, size, mtime) is new or
    /// reported, and forget the files that are gone. A full pass that meets a symbolic link
    /// stops the watch (a change behind a link is not a change the watch can report).
    pub async fn candidates(&self, live: &LiveIndex) {
        let _turn = live.turn().await;
        if live.watch_state() == WatchState::Untried {
            // Watch before the first pass, so a change made during it is not missed. A host
            // without `lstat` cannot tell a reported link from a file (whose target's changes
            // the watch would not report): no watch there.
            let watch = if self.store.fs().capabilities().lstat {
                self.store
                    .fs()
                    .watch(self.store.dir(), live.listener())
                    .await
                    .ok()
            } else {
                None
            };
            live.set_watch(watch);
        }
        let pending = live.take_pending();
        // Given back if this future is dropped before the index is current.
        let mut unfinished = Unfinished {
            live,
            pending: Some(Pending {
                everything: pending.everything,
                paths: pending.paths.clone(),
            }),
        };
        let full = pending.everything
            || pending.paths.len() > MAX_PATH_PROBES
            || !self.probe_paths(live, &pending.paths).await;
        if full {
            self.full_pass(live, &pending.paths).await;
        }
        unfinished.pending = None;
        self.save_index_cache(live).await;
    }

    /// The persisted index cache's bytes ([`INDEX_CACHE_NAME`]), if this is the instance's first
    /// full pass, its index never held a memory, and the file reads.
    async fn load_index_cache(&self, live: &LiveIndex) -> Option<Vec<u8>> {
        let mut mark = live.cache_mark();
        if mark.tried || !live.index().borrow().is_new() {
            return None;
        }
        mark.tried = true;
        live.set_cache_mark(mark);
        let path = format!("{}{INDEX_CACHE_NAME}", self.store.dir());
        super::index_cache::read(self.store.fs(), &path).await
    }

    /// Rewrite the persisted index cache when the index changed and a write is due (never in
    /// read-only mode). A cache: a failed write costs reads next time, never a recall.
    async fn save_index_cache(&self, live: &LiveIndex) {
        if !matches!(
            self.store.write_mode(),
            WriteMode::Auto | WriteMode::Confirm
        ) {
            return;
        }
        let mut mark = live.cache_mark();
        let now = self.store.clock().now_ms();
        let (edits, text) = {
            let index = live.index().borrow();
            if !mark.due(index.edits(), now) {
                return;
            }
            (index.edits(), encode(&index, self.store.dir()))
        };
        let path = format!("{}{INDEX_CACHE_NAME}", self.store.dir());
        if self.store.write_atomic(&path, &text).await.is_ok() {
            mark.saved_edits = edits;
            mark.saved_at_ms = Some(now);
            live.set_cache_mark(mark);
        }
    }

    /// Look at each reported path again; false when a full pass is needed (a directory changed).
    async fn probe_paths(&self, live: &LiveIndex, paths: &[String]) -> bool {
        for rel in paths {
            match self.store.probe_memory_path(rel).await {
                PathState::Memory(file) => {
                    let header = self.store.read_memory_head(&file).await;
                    let mut index = live.index().borrow_mut();
                    match header {
                        Some(h) => index.upsert(h, file.size, u32::MAX),
                        None => {
                            index.remove(rel);
                        }
                    }
                }
                PathState::Missing => {
                    let mut index = live.index().borrow_mut();
                    index.remove(rel);
                    if index.has_under(rel) {
                        return false; // a directory went away
                    }
                }
                PathState::Dir => return false,
                PathState::Other => {
                    live.index().borrow_mut().remove(rel);
                }
            }
        }
        true
    }

    /// List and stat the directory; read what is new, changed or in `forced`; forget what is
    /// gone.
    async fn full_pass(&self, live: &LiveIndex, forced: &[String]) {
        // The persisted cache (first pass only) is read while the directory is listed, and
        // decoded (and its terms interned) a slice per stat batch while the host stats the
        // batch (the same stats, one batch at a time, as without a cache).
        let (walked, text) =
            join(self.store.walk_memory_files(), self.load_index_cache(live)).await;
        let mut decoding = text
            .as_deref()
            .and_then(|t| Decoding::start(t, self.store.dir()));
        let slice = text.as_ref().map_or(0, Vec::len) / walked.stat_batches() + 1;
        let listing = self
            .store
            .stat_memory_files(walked, &mut || {
                if let Some(d) = decoding.as_mut() {
                    d.step(slice);
                    d.intern_step(&mut live.index().borrow_mut(), INTERN_SLICE);
                }
            })
            .await;
        let mut cache = decoding.and_then(Decoding::finish);
        if listing.links > 0 && live.watch_state() == WatchState::Active {
            // A change behind a link is not reported by a watch of the directory: stat every
            // file each recall instead, as without a watch.
            live.set_watch(None);
        }
        let mut files = listing.files;
        // The files to read or take from the cache (walk position, which is their place in
        // `files`), and where the cache holds each unchanged: forced paths, this instance's own
        // writes, are read whatever the cache says. What the cache holds is loaded at once into
        // the new index; the rest is read. (Should the load be refused, everything is read.)
        let (stale, mut cached): (Vec<u32>, Vec<Option<usize>>) = {
            let mut index = live.index().borrow_mut();
            index.begin_pass();
            let stale = files
                .iter()
                .enumerate()
                .filter_map(|(i, f)| {
                    let order = u32::try_from(i).unwrap_or(u32::MAX);
                    let current = index.listed(&f.rel, f.size, f.mtime_ms, order);
                    let forced = forced.binary_search_by(|p| p.as_str().cmp(&f.rel)).is_ok();
                    if current && !forced {
                        return None;
                    }
                    let at = cache
                        .as_ref()
                        .filter(|_| !forced)
                        .and_then(|c| c.position(listed(f)));
                    Some((order, at))
                })
                .unzip();
            index.sweep();
            stale
        };
        if let Some(c) = cache.as_mut() {
            // The files taken from the cache give their strings to the index.
            let hits: Vec<Hit> = stale
                .iter()
                .zip(&cached)
                .filter_map(|(&order, &at)| {
                    // Only a file the cache holds gives its strings away.
                    let at = at?;
                    let f = files.get_mut(order as usize)?;
                    Some(Hit {
                        rel: std::mem::take(&mut f.rel),
                        path: std::mem::take(&mut f.path),
                        size: f.size,
                        mtime_ms: f.mtime_ms,
                        at,
                        order,
                    })
                })
                .collect();
            if !hits.is_empty() {
                if let Err(back) = c.apply_bulk(&mut live.index().borrow_mut(), hits) {
                    for hit in back {
                        if let Some(f) = files.get_mut(hit.order as usize) {
                            (f.rel, f.path) = (hit.rel, hit.path);
                        }
                    }
                    cached.iter_mut().for_each(|at| *at = None);
                }
            }
        }
        let stale: Vec<(u32, &MemoryFile)> = stale
            .iter()
            .filter_map(|&order| Some((order, files.get(order as usize)?)))
            .collect();
        for (chunk, cached) in stale.chunks(READ_CHUNK).zip(cached.chunks(READ_CHUNK)) {
            let reads: Vec<_> = chunk
                .iter()
                .zip(cached)
                .filter(|(_, at)| at.is_none())
                .map(|((_, f), _)| self.store.read_memory_head(f))
                .collect();
            if reads.is_empty() {
                continue;
            }
            let mut heads = join_all(reads).await.into_iter();
            let mut index = live.index().borrow_mut();
            for ((order, file), _) in chunk.iter().zip(cached).filter(|(_, at)| at.is_none()) {
                match heads.next().flatten() {
                    Some(h) => index.upsert(h, file.size, *order),
                    // Unreadable: left out, as the scan leaves it out.
                    None => {
                        index.remove(&file.rel);
                    }
                }
            }
        }
    }

    /// The selection step over `index` (borrowed only between `await`s); the embedder or LLM
    /// gets what is left of the recall's time until `deadline` (ms since the epoch).
    async fn select(
        &self,
        index: &RefCell<RecallIndex>,
        query: &str,
        options: &FindOptions,
        deadline: f64,
    ) -> Recall {
        let started = self.store.clock().now_ms();
        let surfaced = sorted_surfaced(options);
        let count = index.borrow().candidates(&surfaced);
        let nobody = if self.llm.is_some() {
            AnsweredBy::Llm
        } else {
            AnsweredBy::Lexical
        };
        if count == 0 || options.limit == 0 {
            return Recall {
                memories: Vec::new(),
                answered_by: nobody,
                outcome: RecallOutcome::Ok,
            };
        }
        let mut fused = Vec::new();
        let (answered_by, outcome, chosen) =
            if options.abort.as_ref().is_some_and(AbortFlag::is_aborted) {
                (nobody, RecallOutcome::Aborted, Vec::new())
            } else {
                match (self.llm, self.embedder) {
                    (None, Some(embedder)) => {
                        let at = Stage {
                            query,
                            options,
                            surfaced: &surfaced,
                            deadline,
                        };
                        self.semantic(embedder, index, &at, &mut fused).await
                    }
                    (None, None) => (
                        AnsweredBy::Lexical,
                        RecallOutcome::Ok,
                        index.borrow_mut().rank(query, options.limit, &surfaced),
                    ),
                    (Some(llm), embedder) => {
                        let at = Stage {
                            query,
                            options,
                            surfaced: &surfaced,
                            deadline,
                        };
                        self.select_with_llm(llm, embedder, index, count, &at, &mut fused)
                            .await
                    }
                }
            };
        let mut whys = if options.explain {
            explain(&index.borrow(), query, &chosen, &fused)
        } else {
            Vec::new()
        }
        .into_iter();
        let memories: Vec<RecalledMemory> = chosen
            .into_iter()
            .map(|h| RecalledMemory {
                path: h.file_path,
                mtime_ms: h.mtime_ms,
                why: whys.next(),
            })
            .collect();
        let duration = self.store.clock().now_ms() - started;
        self.store.telemetry().emit(
            RECALL_EVENT,
            &[
                ("answered_by", FieldValue::Str(answered_by.as_str().into())),
                ("outcome", FieldValue::Str(outcome.as_str().into())),
                ("candidates", FieldValue::Num(count as f64)),
                ("selected", FieldValue::Num(memories.len() as f64)),
                ("duration_ms", FieldValue::Num(duration.max(0.0))),
            ],
        );
        Recall {
            memories,
            answered_by,
            outcome,
        }
    }

    /// Fused lexical and cosine scores (the kept ones into `fused`, in the order chosen); the
    /// ranker alone when the embedder fails, lies or is too slow (within the recall's deadline
    /// and the caller's abort).
    async fn semantic(
        &self,
        embedder: &E,
        index: &RefCell<RecallIndex>,
        at: &Stage<'_>,
        fused: &mut Vec<Fused>,
    ) -> (AnsweredBy, RecallOutcome, Vec<MemoryHeader>) {
        match self.signals(embedder, index, at).await {
            Ok(signals) => {
                let (by, chosen) = signals.answer(&self.config.fusion, at.options.limit, fused);
                (by, RecallOutcome::Ok, chosen)
            }
            Err(RecallOutcome::Aborted) => {
                (AnsweredBy::Lexical, RecallOutcome::Aborted, Vec::new())
            }
            Err(outcome) => {
                let chosen = index
                    .borrow_mut()
                    .rank(at.query, at.options.limit, at.surfaced);
                (AnsweredBy::Lexical, outcome, chosen)
            }
        }
    }

    /// Every candidate's lexical score and cosine, or the outcome that says why the embedder
    /// gave none (within the recall's deadline and the caller's abort).
    async fn signals(
        &self,
        embedder: &E,
        index: &RefCell<RecallIndex>,
        at: &Stage<'_>,
    ) -> Result<Signals, RecallOutcome> {
        let memories = index.borrow().scored(at.query, at.surfaced);
        let call = cosines(self.store, embedder, &memories, at.query);
        match at.bounded(self.store, call).await {
            Ok(Ok(cosines)) => Ok(Signals { memories, cosines }),
            Ok(Err(EmbedFailure::Host(_))) => Err(RecallOutcome::Error),
            Ok(Err(EmbedFailure::Invalid(_))) => Err(RecallOutcome::InvalidReply),
            Err(Cut::TimedOut) => Err(RecallOutcome::Timeout),
            Err(Cut::Aborted) => Err(RecallOutcome::Aborted),
        }
    }

    /// The LLM's selection over a manifest of at most `selector_budget` memories: every
    /// candidate (newest first) when they fit, else the best of the whole directory by the fused
    /// scores (with an embedder that answers within half of the time left) or by the ranker. When the LLM fails and
    /// `fallback_to_lexical` is on, the fused ranker answers (with an embedder; its kept scores
    /// into `fused`), else the lexical one.
    async fn select_with_llm(
        &self,
        llm: &L,
        embedder: Option<&E>,
        index: &RefCell<RecallIndex>,
        count: usize,
        at: &Stage<'_>,
        fused: &mut Vec<Fused>,
    ) -> (AnsweredBy, RecallOutcome, Vec<MemoryHeader>) {
        let Stage {
            query,
            options,
            surfaced,
            ..
        } = *at;
        let budget = self.config.selector_budget.max(1);
        let mut signals = None;
        let (by, shown) = if count <= budget {
            (AnsweredBy::Llm, index.borrow().newest(surfaced, budget))
        } else {
            if let Some(embedder) = embedder {
                // At most half of what is left: a hanging embedder must leave the LLM time.
                let now = self.store.clock().now_ms();
                let half = Stage {
                    deadline: now + (at.deadline - now).max(0.0) / 2.0,
                    ..*at
                };
                match self.signals(embedder, index, &half).await {
                    Ok(s) => signals = Some(s),
                    Err(RecallOutcome::Aborted) => {
                        return (AnsweredBy::Llm, RecallOutcome::Aborted, Vec::new())
                    }
                    // The embedder failed: the ranker pre-filters, the LLM still selects.
                    Err(_) => {}
                }
            }
            match &signals {
                Some(s) => (
                    AnsweredBy::LlmSemanticPrefilter,
                    s.best(self.config.fusion.lexical_weight, budget),
                ),
                None => (
                    AnsweredBy::LlmPrefilter,
                    index.borrow_mut().prefilter(query, budget, surfaced),
                ),
            }
        };
        let manifest = crate::manifest::format_manifest(&shown);
        let request = build_selector_request(query, &manifest, &options.recent_tools);
        let outcome = match at.bounded(self.store, llm.complete(&request)).await {
            Ok(Ok(text)) => {
                let names: Vec<&str> = shown.iter().map(|h| h.filename.as_str()).collect();
                match try_parse_selector_reply(&text, &names, options.limit) {
                    Some(selected) => {
                        let chosen = selected
                            .iter()
                            .filter_map(|f| shown.iter().find(|h| h.filename == *f).cloned())
                            .collect();
                        return (by, RecallOutcome::Ok, chosen);
                    }
                    None => RecallOutcome::InvalidReply,
                }
            }
            Ok(Err(_)) => RecallOutcome::Error,
            Err(Cut::TimedOut) => RecallOutcome::Timeout,
            Err(Cut::Aborted) => return (by, RecallOutcome::Aborted, Vec::new()),
        };
        if !self.config.fallback_to_lexical {
            return (by, outcome, Vec::new());
        }
        // The fallback: the fused ranker when the embedder answers (now, if it was not asked
        // yet, within what is left of the deadline), else the lexical one.
        if signals.is_none() {
            if let Some(embedder) = embedder {
                match self.signals(embedder, index, at).await {
                    Ok(s) => signals = Some(s),
                    Err(RecallOutcome::Aborted) => {
                        return (AnsweredBy::Lexical, RecallOutcome::Aborted, Vec::new())
                    }
                    Err(_) => {}
                }
            }
        }
        match signals {
            Some(s) => {
                let (by, chosen) = s.answer(&self.config.fusion, options.limit, fused);
                (by, outcome, chosen)
            }
            None => {
                let chosen = index.borrow_mut().rank(query, options.limit, surfaced);
                (AnsweredBy::Lexical, outcome, chosen)
            }
        }
    }
}

/// Every candidate (newest first) with its lexical score, and its cosine to the query.
struct Signals {
    memories: Vec<ScoredMemory>,
    cosines: Vec<f32>,
}

impl Signals {
    fn pairs(&self) -> Vec<(f32, f32)> {
        self.memories
            .iter()
            .zip(&self.cosines)
            .map(|(m, &c)| (m.lexical, c))
            .collect()
    }

    /// The fused answer (the kept scores into `fused`): `semantic` when every chosen memory
    /// matched on its embedding alone, else `lexical+semantic`.
    fn answer(
        &self,
        params: &FusionParams,
        limit: usize,
        fused: &mut Vec<Fused>,
    ) -> (AnsweredBy, Vec<MemoryHeader>) {
        let kept = fuse(&self.pairs(), params, limit);
        let by = if !kept.is_empty() && kept.iter().all(|f| f.lexical <= 0.0) {
            AnsweredBy::Semantic
        } else {
            AnsweredBy::LexicalSemantic
        };
        let chosen = kept
            .iter()
            .filter_map(|f| self.memories.get(f.index).map(|m| m.header.clone()))
            .collect();
        *fused = kept;
        (by, chosen)
    }

    /// The `budget` best memories by fused score, no cut-off (an LLM's manifest).
    fn best(&self, lexical_weight: f32, budget: usize) -> Vec<MemoryHeader> {
        fused_order(&self.pairs(), lexical_weight, budget)
            .into_iter()
            .filter_map(|i| self.memories.get(i).map(|m| m.header.clone()))
            .collect()
    }
}

/// What the selection's host stage (embedder or LLM) works with: the query, the caller's
/// options, the already-surfaced paths (sorted) and the recall's one deadline.
#[derive(Clone, Copy)]
struct Stage<'s> {
    query: &'s str,
    options: &'s FindOptions,
    surfaced: &'s [&'s str],
    /// When the whole recall must be over (ms since the epoch, host clock): the stage gets what
    /// the candidate step left of the recall timeout.
    deadline: f64,
}

impl Stage<'_> {
    /// Run `call` until the recall's deadline or the caller's abort.
    async fn bounded<F: FileSystem, C: Clock, T: Telemetry, R>(
        &self,
        store: &Store<F, C, T>,
        call: impl std::future::Future<Output = R>,
    ) -> Result<R, Cut> {
        let abort = async {
            match &self.options.abort {
                Some(flag) => flag.aborted().await,
                None => std::future::pending().await,
            }
        };
        store.with_deadline(self.deadline, abort, call).await
    }
}

/// Why each of `chosen` was picked: its matched terms, and (when `fused` holds one entry per
/// chosen memory, an embedder answered) its fused score and cosine.
fn explain(
    index: &RecallIndex,
    query: &str,
    chosen: &[MemoryHeader],
    fused: &[Fused],
) -> Vec<RecallWhy> {
    let names: Vec<&str> = chosen.iter().map(|h| h.filename.as_str()).collect();
    let lexical = index.ranker().explain_files(query, &names);
    lexical
        .into_iter()
        .enumerate()
        .map(|(i, lex)| {
            let lexical = lex.map(|e| LexicalWhy {
                score: e.score,
                terms: e
                    .terms
                    .into_iter()
                    .map(|t| TermWhy {
                        fields: Field::ALL
                            .into_iter()
                            .filter(|&f| t.counts.get(f) > 0)
                            .map(Field::as_str)
                            .collect(),
                        term: t.term,
                    })
                    .collect(),
            });
            let fused = fused.get(i).filter(|_| fused.len() == chosen.len());
            RecallWhy {
                score: fused.map_or_else(|| lexical.as_ref().map_or(0.0, |l| l.score), |f| f.score),
                lexical,
                semantic: fused.map(|f| SemanticWhy { cosine: f.cosine }),
            }
        })
        .collect()
}

/// The caller's already-surfaced paths, sorted (for binary search).
/// A listed memory file as the index cache keys it.
fn listed(f: &MemoryFile) -> Listed<'_> {
    Listed {
        rel: &f.rel,
        size: f.size,
        mtime_ms: f.mtime_ms,
    }
}

fn sorted_surfaced(options: &FindOptions) -> Vec<&str> {
    let mut surfaced: Vec<&str> = options
        .already_surfaced
        .iter()
        .map(String::as_str)
        .collect();
    crate::sort::sort(&mut surfaced);
    surfaced
}

/// Gives a refresh's changes back to the index if the refresh is dropped before it finishes.
struct Unfinished<'a> {
    live: &'a LiveIndex,
    pending: Option<Pending>,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if let Some(pending) = self.pending.take() {
            self.live.restore_pending(pending);
        }
    }
}

/// Read and surface the memories at `paths` (absolute path and mtime from the scan, as
/// [`Recaller::find_relevant`] returns them), concurrently, in order. A file that cannot
/// be read, or lies outside `store`'s directory, is left out. Ages are measured from the host
/// clock's now.
///
/// ```
/// use memdir::recall::surface_memories;
/// use memdir::store::{Store, StoreConfig, WriteMode};
/// use memdir::{future::block_on, MemFs, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let fs = MemFs::new();
/// fs.insert_file("/m/a.md", "body\n");
/// fs.insert_file("/elsewhere.md", "secret\n");
/// let store = Store::new(fs, Clock0, NoTelemetry, "/m/", WriteMode::Auto, StoreConfig::default());
/// let paths = [("/m/a.md".to_owned(), 0.0), ("/elsewhere.md".to_owned(), 0.0)];
/// let shown = block_on(surface_memories(&store, &paths));
/// assert_eq!(shown.len(), 1);
/// assert_eq!(shown[0].content, "body\n");
/// ```
pub async fn surface_memories<F: FileSystem, C: Clock, T: Telemetry>(
    store: &Store<F, C, T>,
    paths: &[(String, f64)],
) -> Vec<SurfacedMemory> {
    let now = store.clock().now_ms();
    let reads = paths
        .iter()
        .map(|(path, mtime)| async move {
            // Only memory files: a path from anywhere else (a model's say-so) is left out.
            if !crate::paths::normalize(path).starts_with(store.dir()) {
                return None;
            }
            let text = store.read_contained(path).await.ok()?;
            Some(surface_text(path, &text, *mtime, now))
        })
        .collect();
    crate::future::join_some(reads).await
}
