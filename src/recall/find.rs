//! Recall over a store: [`Recaller::find_relevant`] (reference §6.1), which memories help with a
//! query, and [`surface_memories`], reading the chosen ones for the model.
//!
//! Sequence: scan; drop memories already surfaced this session; ask the host's LLM (raced
//! against the configured timeout and the caller's abort), pre-filtering with the ranker when
//! there are more candidates than the selector budget; or answer with the ranker when no LLM is
//! configured. A failing, hanging or babbling LLM never makes recall fail: the answer is the
//! ranker's (when `fallback_to_lexical`) or nothing. An abort always yields nothing.

use super::abort::AbortFlag;
use super::embed::{cosines, EmbedFailure};
use super::ranker::RankerIndex;
use super::selector::{build_selector_request, try_parse_selector_reply};
use super::semantic::fuse;
use super::surface::{surface_text, SurfacedMemory};
use super::RecallConfig;
use crate::future::{race, Either};
use crate::host::{Clock, Embedder, FieldValue, FileSystem, Llm, NoEmbedder, NoLlm, Telemetry};
use crate::store::Store;
use crate::types::{MemoryHeader, MAX_SELECTED};
use serde::Serialize;

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
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            recent_tools: Vec::new(),
            already_surfaced: Vec::new(),
            limit: MAX_SELECTED,
            abort: None,
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
    /// Lexical and embedding scores fused (no LLM, an embedder configured); at least one
    /// chosen memory also matched lexically, or nothing passed the cut-off.
    #[serde(rename = "lexical+semantic")]
    LexicalSemantic,
    /// Fused scores where every chosen memory matched on its embedding alone.
    #[serde(rename = "semantic")]
    Semantic,
}

impl AnsweredBy {
    /// `llm`, `lexical`, `llm+prefilter`, `lexical+semantic` or `semantic`.
    pub fn as_str(self) -> &'static str {
        match self {
            AnsweredBy::Llm => "llm",
            AnsweredBy::Lexical => "lexical",
            AnsweredBy::LlmPrefilter => "llm+prefilter",
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
///     .find_relevant("which language for services", FindOptions::default())).unwrap();
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
}

impl<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm> Recaller<'a, F, C, T, L> {
    /// Recall over `store` with `llm` and `config` (no embedder: see [`Recaller::with_embedder`]).
    pub fn new(store: &'a Store<F, C, T>, llm: Option<&'a L>, config: &'a RecallConfig) -> Self {
        Recaller {
            store,
            llm,
            embedder: None,
            config,
        }
    }
}

impl<'a, F: FileSystem, C: Clock, T: Telemetry, L: Llm, E: Embedder> Recaller<'a, F, C, T, L, E> {
    /// The same recall with a host embedder: without an LLM, the answer fuses the ranker's
    /// score with cosine (see [`crate::recall::semantic`]); a failing embedder falls back to
    /// the ranker, reported in [`Recall::outcome`].
    pub fn with_embedder<E2: Embedder>(
        self,
        embedder: Option<&'a E2>,
    ) -> Recaller<'a, F, C, T, L, E2> {
        Recaller {
            store: self.store,
            llm: self.llm,
            embedder,
            config: self.config,
        }
    }

    /// The memories relevant to `query`: scan the directory, then [`Self::find_relevant_in`].
    /// Fails only if the scan fails.
    pub async fn find_relevant(&self, query: &str, options: FindOptions) -> crate::Result<Recall> {
        let headers = self.store.scan().await?;
        Ok(self.find_relevant_in(headers, query, &options).await)
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
        let started = self.store.clock().now_ms();
        let mut surfaced: Vec<&str> = options
            .already_surfaced
            .iter()
            .map(String::as_str)
            .collect();
        crate::sort::sort(&mut surfaced);
        let candidates: Vec<MemoryHeader> = headers
            .into_iter()
            .filter(|h| surfaced.binary_search(&h.file_path.as_str()).is_err())
            .collect();
        let nobody = if self.llm.is_some() {
            AnsweredBy::Llm
        } else {
            AnsweredBy::Lexical
        };
        if candidates.is_empty() || options.limit == 0 {
            return Recall {
                memories: Vec::new(),
                answered_by: nobody,
                outcome: RecallOutcome::Ok,
            };
        }
        let (answered_by, outcome, chosen) =
            if options.abort.as_ref().is_some_and(AbortFlag::is_aborted) {
                (nobody, RecallOutcome::Aborted, Vec::new())
            } else {
                match (self.llm, self.embedder) {
                    (None, Some(embedder)) => {
                        self.semantic(embedder, &candidates, query, options).await
                    }
                    (None, None) => (
                        AnsweredBy::Lexical,
                        RecallOutcome::Ok,
                        self.lexical(&candidates, query, options.limit),
                    ),
                    (Some(llm), _) => self.select_with_llm(llm, &candidates, query, options).await,
                }
            };
        let memories: Vec<RecalledMemory> = chosen
            .iter()
            .filter_map(|&i| candidates.get(i))
            .map(|h| RecalledMemory {
                path: h.file_path.clone(),
                mtime_ms: h.mtime_ms,
            })
            .collect();
        let duration = self.store.clock().now_ms() - started;
        self.store.telemetry().emit(
            RECALL_EVENT,
            &[
                ("answered_by", FieldValue::Str(answered_by.as_str().into())),
                ("outcome", FieldValue::Str(outcome.as_str().into())),
                ("candidates", FieldValue::Num(candidates.len() as f64)),
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

    /// Positions in `candidates` the ranker picks.
    fn lexical(&self, candidates: &[MemoryHeader], query: &str, limit: usize) -> Vec<usize> {
        let index = RankerIndex::build_with(candidates, self.config.ranker.clone());
        positions(
            candidates,
            index.rank(query, limit).iter().map(|r| r.filename.as_str()),
        )
    }

    /// Fused lexical and cosine scores; the ranker alone when the embedder fails, lies or is
    /// too slow (within the recall timeout and the caller's abort).
    async fn semantic(
        &self,
        embedder: &E,
        candidates: &[MemoryHeader],
        query: &str,
        options: &FindOptions,
    ) -> (AnsweredBy, RecallOutcome, Vec<usize>) {
        let abort = async {
            match &options.abort {
                Some(flag) => flag.aborted().await,
                None => std::future::pending().await,
            }
        };
        let stop = race(self.store.clock().sleep(self.config.timeout_ms), abort);
        let outcome = match race(cosines(self.store, embedder, candidates, query), stop).await {
            Either::Left(Ok(cos)) => {
                let index = RankerIndex::build_with(candidates, self.config.ranker.clone());
                let lexical = index.calibrated_scores(query);
                // Slot i is candidate i (build_with); a query without usable terms scores 0.
                let scores: Vec<(f32, f32)> = cos
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| (lexical.get(i).map_or(0.0, |&(_, l)| l), c))
                    .collect();
                let kept = fuse(&scores, &self.config.fusion, options.limit);
                let by = if !kept.is_empty() && kept.iter().all(|f| f.lexical <= 0.0) {
                    AnsweredBy::Semantic
                } else {
                    AnsweredBy::LexicalSemantic
                };
                return (
                    by,
                    RecallOutcome::Ok,
                    kept.iter().map(|f| f.index).collect(),
                );
            }
            Either::Left(Err(EmbedFailure::Host(_))) => RecallOutcome::Error,
            Either::Left(Err(EmbedFailure::Invalid(_))) => RecallOutcome::InvalidReply,
            Either::Right(Either::Left(())) => RecallOutcome::Timeout,
            Either::Right(Either::Right(())) => {
                return (AnsweredBy::Lexical, RecallOutcome::Aborted, Vec::new())
            }
        };
        (
            AnsweredBy::Lexical,
            outcome,
            self.lexical(candidates, query, options.limit),
        )
    }

    async fn select_with_llm(
        &self,
        llm: &L,
        candidates: &[MemoryHeader],
        query: &str,
        options: &FindOptions,
    ) -> (AnsweredBy, RecallOutcome, Vec<usize>) {
        let budget = self.config.selector_budget.max(1);
        let (by, shown): (AnsweredBy, Vec<MemoryHeader>) = if candidates.len() > budget {
            let index = RankerIndex::build_with(candidates, self.config.ranker.clone());
            let picked = index.prefilter(query, budget);
            let shown = picked
                .iter()
                .filter_map(|&i| candidates.get(i).cloned())
                .collect();
            (AnsweredBy::LlmPrefilter, shown)
        } else {
            (AnsweredBy::Llm, candidates.to_vec())
        };
        let manifest = crate::manifest::format_manifest(&shown);
        let request = build_selector_request(query, &manifest, &options.recent_tools);
        let abort = async {
            match &options.abort {
                Some(flag) => flag.aborted().await,
                None => std::future::pending().await,
            }
        };
        let stop = race(self.store.clock().sleep(self.config.timeout_ms), abort);
        let outcome = match race(llm.complete(&request), stop).await {
            Either::Left(Ok(text)) => {
                let names: Vec<&str> = shown.iter().map(|h| h.filename.as_str()).collect();
                match try_parse_selector_reply(&text, &names, options.limit) {
                    Some(selected) => {
                        let chosen = positions(candidates, selected.iter().map(String::as_str));
                        return (by, RecallOutcome::Ok, chosen);
                    }
                    None => RecallOutcome::InvalidReply,
                }
            }
            Either::Left(Err(_)) => RecallOutcome::Error,
            Either::Right(Either::Left(())) => RecallOutcome::Timeout,
            Either::Right(Either::Right(())) => return (by, RecallOutcome::Aborted, Vec::new()),
        };
        if self.config.fallback_to_lexical {
            (
                AnsweredBy::Lexical,
                outcome,
                self.lexical(candidates, query, options.limit),
            )
        } else {
            (by, outcome, Vec::new())
        }
    }
}

/// Positions in `candidates` of the given filenames, in their order (unknown names skipped).
fn positions<'a>(
    candidates: &[MemoryHeader],
    filenames: impl Iterator<Item = &'a str>,
) -> Vec<usize> {
    // The first candidate of each name (a linear search: at most a few hundred candidates).
    filenames
        .filter_map(|f| candidates.iter().position(|h| h.filename == f))
        .collect()
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
            let text = store.fs().read_file(path).await.ok()?;
            Some(surface_text(path, &text, *mtime, now))
        })
        .collect();
    crate::future::join_some(reads).await
}
