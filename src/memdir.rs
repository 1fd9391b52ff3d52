//! `Memdir`: the façade at the top of the core. It bundles a [`Store`] (the directory, its host
//! objects, write mode and lock) with the feature settings (prompt, recall) and the optional LLM,
//! and forwards each method in one line to the feature that does the work: `store/` for reads
//! and writes, `recall/`, `prompt/`, `lint/`, `memory_tool/`, `extract/`, `consolidate/`,
//! `sync/`. Nothing below this file knows about `Memdir`.

use crate::consolidate::{
    ApplyReport, Changeset, ConsolidateOptions, ConsolidateOutcome, ConsolidationLease,
    Consolidator, LockFile,
};
use crate::error::Result;
use crate::extract::{
    ConversationMessage, ExtractContext, ExtractOptions, ExtractOutcome, Extractor,
};
use crate::host::{Clock, Embedder, FileSystem, Llm, NoEmbedder, NoLlm, NoTelemetry, Telemetry};
use crate::lint::{LintOptions, LintReport};
use crate::memory_tool::{MemoryTool, MemoryToolCommand, MemoryToolOutcome};
use crate::prompt::PromptConfig;
use crate::recall::{FindOptions, LiveIndex, Recall, RecallConfig, Recaller, SurfacedMemory};
use crate::store::{
    IndexView, ListedMemory, LocalDate, MemoryChanges, Proposal, SaveInput, SaveOutcome, Scope,
    Store,
};
use crate::sync::{SharedStoreSync, StoreSync, SyncConfig, SyncState, Transport};
use crate::types::MemoryHeader;
use std::rc::Rc;

pub use crate::store::{StoreConfig, WriteMode, DEFAULT_LOCK_STALE_MS, DEFAULT_LOCK_TIMEOUT_MS};

/// Configuration of a [`Memdir`].
#[derive(Clone, Debug, PartialEq)]
pub struct MemdirConfig {
    /// The memory directory, absolute, ending with exactly one `/`.
    pub dir: String,
    /// Write policy.
    pub write_mode: WriteMode,
    /// What the memory prompt looks like (mode, tool names, overrides …).
    pub prompt: PromptConfig,
    /// Recall tuning (timeout, selector budget, fallback …).
    pub recall: RecallConfig,
    /// Read/write tuning: index caps, lock timeout and staleness.
    pub store: StoreConfig,
}

impl MemdirConfig {
    /// A configuration for `dir` with every other setting at its default. Trailing slashes are
    /// collapsed to exactly one (an empty `dir` stays empty). Not checked: see
    /// [`MemdirConfig::try_new`].
    ///
    /// ```
    /// let c = memdir::MemdirConfig::new("/home/u/memory//");
    /// assert_eq!(c.dir, "/home/u/memory/");
    /// assert_eq!(c.write_mode, memdir::WriteMode::Auto);
    /// ```
    pub fn new(dir: impl Into<String>) -> Self {
        let dir: String = dir.into();
        let trimmed = dir.trim_end_matches('/');
        MemdirConfig {
            dir: if dir.is_empty() {
                dir.clone()
            } else {
                format!("{trimmed}/")
            },
            write_mode: WriteMode::default(),
            prompt: PromptConfig::default(),
            recall: RecallConfig::default(),
            store: StoreConfig::default(),
        }
    }

    /// [`MemdirConfig::new`] for a directory that passes
    /// [`check_memory_dir`](crate::paths::check_memory_dir): an empty, relative or root
    /// directory, or one with a NUL byte, is refused with `INVALID_INPUT`.
    ///
    /// ```
    /// assert_eq!(memdir::MemdirConfig::try_new("/m").unwrap().dir, "/m/");
    /// assert_eq!(memdir::MemdirConfig::try_new("").unwrap_err().code, memdir::Code::InvalidInput);
    /// assert!(memdir::MemdirConfig::try_new("memory/").is_err());
    /// ```
    pub fn try_new(dir: impl Into<String>) -> crate::error::Result<Self> {
        let config = MemdirConfig::new(dir);
        crate::paths::check_memory_dir(&config.dir)?;
        Ok(config)
    }
}

/// A memory directory over a host filesystem, LLM, telemetry sink and clock.
///
/// ```
/// use memdir::{future::block_on, MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry};
/// # struct Clock0;
/// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
/// let m = Memdir::new(MemFs::new(), Clock0, None::<NoLlm>, NoTelemetry, MemdirConfig::new("/m/"));
/// assert_eq!(m.dir(), "/m/");
/// assert!(block_on(m.scan()).unwrap().is_empty());
/// ```
pub struct Memdir<
    F: FileSystem,
    C: Clock,
    L: Llm = NoLlm,
    T: Telemetry = NoTelemetry,
    E: Embedder = NoEmbedder,
> {
    /// Shared so that a team sync bound to this memdir takes the same lock.
    store: Rc<Store<F, C, T>>,
    llm: Option<L>,
    /// The host embedder (semantic recall), if any.
    embedder: Option<E>,
    /// As opened; the store keeps its own copy of the directory, write mode and store tuning
    /// (neither changes after opening). The prompt and recall settings are read from here.
    config: MemdirConfig,
    /// The whole-directory ranker index recall keeps between queries. The writes below tell it
    /// which paths they touched (or that anything may have changed).
    recall_index: LiveIndex,
}

impl<F: FileSystem, C: Clock, L: Llm, T: Telemetry> Memdir<F, C, L, T> {
    /// A memdir over `fs` rooted at `config.dir` (no embedder: see [`Memdir::with_embedder`]).
    pub fn new(fs: F, clock: C, llm: Option<L>, telemetry: T, config: MemdirConfig) -> Self {
        let store = Store::new(
            fs,
            clock,
            telemetry,
            config.dir.clone(),
            config.write_mode,
            config.store,
        );
        let recall_index = LiveIndex::new(config.dir.clone(), config.recall.ranker.clone());
        Memdir {
            store: Rc::new(store),
            llm,
            embedder: None,
            config,
            recall_index,
        }
    }
}

impl<F: FileSystem, C: Clock, L: Llm, T: Telemetry, E: Embedder> Memdir<F, C, L, T, E> {
    /// The same memdir with a host embedder for semantic recall (see
    /// [`crate::recall::semantic`]): recall without an LLM fuses cosine with the ranker's score,
    /// keeping each memory's vector in the `.memdir-vectors` sidecar.
    ///
    /// ```
    /// use memdir::{future::block_on, host::{Embedder, HostResult}, MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// struct Fixed;
    /// impl Embedder for Fixed {
    ///     fn model(&self) -> &str { "fixed" }
    ///     async fn embed(&self, texts: &[String]) -> HostResult<Vec<Vec<f32>>> {
    ///         Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
    ///     }
    /// }
    /// let m = Memdir::new(MemFs::new(), Clock0, None::<NoLlm>, NoTelemetry, MemdirConfig::new("/m/"))
    ///     .with_embedder(Some(Fixed));
    /// assert_eq!(m.embedder().map(|e| e.model()), Some("fixed"));
    /// ```
    pub fn with_embedder<E2: Embedder>(self, embedder: Option<E2>) -> Memdir<F, C, L, T, E2> {
        Memdir {
            store: self.store,
            llm: self.llm,
            embedder,
            recall_index: self.recall_index,
            config: self.config,
        }
    }

    /// The host embedder, if any.
    pub fn embedder(&self) -> Option<&E> {
        self.embedder.as_ref()
    }

    /// The index recall keeps of the whole directory (see [`Recaller::with_index`]).
    ///
    /// ```
    /// use memdir::{future::block_on, MemFs, Memdir, MemdirConfig, NoLlm, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let fs = MemFs::new();
    /// fs.insert_file("/m/a.md", "---\ndescription: a\n---\n");
    /// let m = Memdir::new(fs, Clock0, None::<NoLlm>, NoTelemetry, MemdirConfig::new("/m/"));
    /// block_on(m.find_relevant("a", Default::default())).unwrap();
    /// assert_eq!(m.recall_index().len(), 1);
    /// ```
    pub fn recall_index(&self) -> &LiveIndex {
        &self.recall_index
    }

    /// Tell the recall index what a write touched: the paths of its outcome, or (`Err`, or a
    /// proposal) nothing to note.
    fn noted(&self, outcome: Result<SaveOutcome>) -> Result<SaveOutcome> {
        match &outcome {
            Ok(SaveOutcome::Saved(saved)) => self.recall_index.note_change(&saved.path),
            Ok(SaveOutcome::Deleted(deleted)) => self.recall_index.note_change(&deleted.file),
            Ok(SaveOutcome::Proposed(_)) => {}
            // A failed write may have written part of its work.
            Err(_) => self.recall_index.invalidate(),
        }
        outcome
    }

    /// A write whose files are not known here: the next recall stats the whole directory (and
    /// reads only what changed).
    fn touched<R>(&self, result: R) -> R {
        self.recall_index.invalidate();
        result
    }

    /// The store: the directory with its host objects, write mode and lock.
    pub fn store(&self) -> &Store<F, C, T> {
        &self.store
    }

    /// The store, shared (for a [`StoreSync`] whose pulls take this memdir's lock).
    pub fn shared_store(&self) -> Rc<Store<F, C, T>> {
        Rc::clone(&self.store)
    }

    /// The host LLM, if any.
    pub fn llm(&self) -> Option<&L> {
        self.llm.as_ref()
    }

    /// The memory directory (ends with `/`).
    pub fn dir(&self) -> &str {
        self.store.dir()
    }

    /// The host filesystem.
    pub fn fs(&self) -> &F {
        self.store.fs()
    }

    /// The host clock.
    pub fn clock(&self) -> &C {
        self.store.clock()
    }

    /// The host telemetry sink.
    pub fn telemetry(&self) -> &T {
        self.store.telemetry()
    }

    /// The configuration.
    pub fn config(&self) -> &MemdirConfig {
        &self.config
    }

    fn recaller(&self) -> Recaller<'_, F, C, T, L, E> {
        Recaller::new(&self.store, self.llm.as_ref(), &self.config.recall)
            .with_index(&self.recall_index)
            .with_embedder(self.embedder.as_ref())
    }

    fn consolidator(&self) -> Consolidator<'_, F, C, T, L> {
        Consolidator::new(
            &self.store,
            self.llm.as_ref(),
            self.config.prompt.skip_index,
        )
    }

    /// See [`Store::scan`].
    pub async fn scan(&self) -> Result<Vec<MemoryHeader>> {
        self.store.scan().await
    }

    /// See [`Store::scan_page`].
    pub async fn scan_page(&self, limit: usize) -> Result<crate::store::ScanPage> {
        self.store.scan_page(limit).await
    }

    /// See [`Store::manifest`].
    pub async fn manifest(&self) -> Result<String> {
        self.store.manifest().await
    }

    /// See [`Store::read_index`].
    pub async fn read_index(&self) -> Result<IndexView> {
        self.store.read_index().await
    }

    /// See [`Store::read_index_of`].
    pub async fn read_index_of(&self, scope: Scope) -> Result<IndexView> {
        self.store.read_index_of(scope).await
    }

    /// See [`Store::save`].
    pub async fn save(&self, input: SaveInput) -> Result<SaveOutcome> {
        self.noted(self.store.save(input).await)
    }

    /// See [`Store::apply_proposal`].
    pub async fn apply_proposal(&self, proposal: Proposal) -> Result<SaveOutcome> {
        self.noted(self.store.apply_proposal(proposal).await)
    }

    /// See [`Store::update`].
    pub async fn update(&self, file: &str, changes: MemoryChanges) -> Result<SaveOutcome> {
        self.recall_index.note_change(file);
        self.noted(self.store.update(file, changes).await)
    }

    /// See [`Store::delete`].
    pub async fn delete(&self, file: &str) -> Result<SaveOutcome> {
        self.recall_index.note_change(file);
        self.noted(self.store.delete(file).await)
    }

    /// See [`Store::list`].
    pub async fn list(&self) -> Result<Vec<ListedMemory>> {
        self.store.list().await
    }

    /// See [`Store::append_log`].
    pub async fn append_log(&self, text: &str, date: LocalDate) -> Result<String> {
        let path = self.store.append_log(text, date).await;
        match &path {
            Ok(path) => self.recall_index.note_change(path),
            Err(_) => self.recall_index.invalidate(),
        }
        path
    }

    /// See [`Store::with_write_lock`].
    pub async fn with_write_lock<R>(
        &self,
        work: impl std::future::Future<Output = R>,
    ) -> Result<R> {
        self.touched(self.store.with_write_lock(work).await)
    }

    /// See [`Recaller::find_relevant`].
    pub async fn find_relevant(&self, query: &str, options: FindOptions) -> Result<Recall> {
        self.recaller().find_relevant(query, options).await
    }

    /// See [`Recaller::find_relevant_in`].
    pub async fn find_relevant_in(
        &self,
        headers: Vec<MemoryHeader>,
        query: &str,
        options: &FindOptions,
    ) -> Recall {
        self.recaller()
            .find_relevant_in(headers, query, options)
            .await
    }

    /// See [`crate::recall::surface_memories`].
    pub async fn surface(&self, paths: &[(String, f64)]) -> Vec<SurfacedMemory> {
        crate::recall::surface_memories(&self.store, paths).await
    }

    /// See [`crate::prompt::load_prompt`].
    ///
    /// ```
    /// use memdir::{Memdir, MemdirConfig, MemFs, NoLlm, NoTelemetry};
    /// # struct Clock0;
    /// # impl memdir::Clock for Clock0 { fn now_ms(&self) -> f64 { 0.0 } async fn sleep(&self, _: u32) {} }
    /// let memdir = Memdir::new(MemFs::new(), Clock0, None::<NoLlm>, NoTelemetry, MemdirConfig::new("/m/"));
    /// let prompt = memdir::future::block_on(memdir.load_prompt()).unwrap().unwrap();
    /// assert!(prompt.starts_with("# auto memory\n"));
    /// ```
    pub async fn load_prompt(&self) -> Result<Option<String>> {
        crate::prompt::load_prompt(&self.store, &self.config.prompt).await
    }

    /// See [`crate::lint::lint_store`].
    pub async fn lint(&self, options: &LintOptions) -> Result<LintReport> {
        crate::lint::lint_store(&self.store, options).await
    }

    /// See [`MemoryTool::run`].
    pub async fn memory_command(&self, command: MemoryToolCommand) -> Result<MemoryToolOutcome> {
        self.touched(MemoryTool::new(&self.store).run(command).await)
    }

    /// See [`MemoryTool::apply`].
    pub async fn apply_memory_command(&self, command: MemoryToolCommand) -> Result<String> {
        self.touched(MemoryTool::new(&self.store).apply(command).await)
    }

    /// One-off extraction from `messages` with no state kept (no cursor, no throttle): the
    /// same as a fresh [`Extractor`] with `every_n = 1`.
    pub async fn extract(
        &self,
        messages: &[ConversationMessage],
        options: &ExtractOptions,
    ) -> Result<ExtractOutcome> {
        self.touched(Extractor::new(1).run(self, messages, options).await)
    }

    /// See [`Consolidator::consolidate`].
    pub async fn consolidate(&self, options: &ConsolidateOptions) -> Result<ConsolidateOutcome> {
        self.touched(self.consolidator().consolidate(options).await)
    }

    /// See [`Consolidator::apply_changeset`].
    pub async fn apply_changeset(&self, changeset: &Changeset) -> Result<ApplyReport> {
        self.touched(self.consolidator().apply_changeset(changeset).await)
    }

    /// See [`Consolidator::undo_changeset`].
    pub async fn undo_changeset(&self) -> Result<usize> {
        self.touched(self.consolidator().undo_changeset().await)
    }

    /// See [`Consolidator::read_consolidation_lock`].
    pub async fn read_consolidation_lock(&self) -> Result<Option<LockFile>> {
        self.consolidator().read_consolidation_lock().await
    }

    /// See [`Consolidator::last_consolidated_at`].
    pub async fn last_consolidated_at(&self) -> Result<f64> {
        self.consolidator().last_consolidated_at().await
    }

    /// See [`Consolidator::try_acquire_consolidation_lock`].
    pub async fn try_acquire_consolidation_lock(
        &self,
        holder: &str,
    ) -> Result<Option<ConsolidationLease>> {
        self.consolidator()
            .try_acquire_consolidation_lock(holder)
            .await
    }

    /// See [`Consolidator::release_consolidation_lock`].
    pub async fn release_consolidation_lock(&self, lease: &ConsolidationLease) -> Result<()> {
        self.consolidator().release_consolidation_lock(lease).await
    }

    /// See [`Consolidator::rollback_consolidation_lock`].
    pub async fn rollback_consolidation_lock(&self, prior: f64) -> Result<()> {
        self.consolidator().rollback_consolidation_lock(prior).await
    }

    /// See [`Consolidator::record_consolidation`].
    pub async fn record_consolidation(&self) -> Result<()> {
        self.consolidator().record_consolidation().await
    }

    /// Team sync of `<dir>team/` whose pulls are writes of this memdir (its lock and write
    /// mode); see [`StoreSync`].
    pub fn team_sync<X: Transport>(
        &self,
        transport: X,
        config: SyncConfig,
        state: SyncState,
    ) -> SharedStoreSync<F, X, C, T>
    where
        F: Clone,
        C: Clone,
        T: Clone,
    {
        StoreSync::for_store(self.shared_store(), transport, config, state)
    }
}

impl<F: FileSystem, C: Clock, L: Llm, T: Telemetry, E: Embedder> AsRef<Store<F, C, T>>
    for Memdir<F, C, L, T, E>
{
    fn as_ref(&self) -> &Store<F, C, T> {
        &self.store
    }
}

impl<'a, F: FileSystem, C: Clock, L: Llm, T: Telemetry, E: Embedder> From<&'a Memdir<F, C, L, T, E>>
    for ExtractContext<'a, F, C, T, L>
{
    fn from(memdir: &'a Memdir<F, C, L, T, E>) -> Self {
        // An extraction run through this context writes through the store: the next recall
        // stats the directory (a host watch reports the writes too).
        memdir.recall_index.invalidate();
        ExtractContext::new(&memdir.store, memdir.llm.as_ref(), &memdir.config.prompt)
    }
}

impl<'a, F: FileSystem, C: Clock, L: Llm, T: Telemetry, E: Embedder>
    From<&'a Rc<Memdir<F, C, L, T, E>>> for ExtractContext<'a, F, C, T, L>
{
    fn from(memdir: &'a Rc<Memdir<F, C, L, T, E>>) -> Self {
        ExtractContext::from(&**memdir)
    }
}
