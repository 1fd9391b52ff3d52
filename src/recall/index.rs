//! The whole-directory index recall keeps between queries (issue #13: every memory is a
//! candidate). Pure: the I/O that keeps it current is [`crate::recall::Recaller`]'s.
//!
//! * [`RecallIndex`]: every memory's manifest header and its stat (size, mtime), with a
//!   [`RankerIndex`] over its text (frontmatter and body head). Only a file whose stat changed
//!   is re-read and re-tokenised.
//! * [`LiveIndex`]: what a [`crate::Memdir`] owns: the index, the changes reported since the
//!   last recall (by the host's `watch` or by the instance's own writes), the host watch, and a
//!   gate so that one refresh runs at a time. With a watch and no change reported, a recall
//!   stats nothing; without one, each recall lists and stats the directory.

use super::index_cache::CacheMark;
use super::ranker::{BulkDoc, Posting, RankerIndex, RankerParams, FIELDS};
use crate::host::{HostWatch, WatchEvent, WatchListener};
use crate::types::MemoryHeader;
use std::cell::{Cell, RefCell};
// (The map type `lint` uses too, so no other map code is compiled into the wasm; B-trees and
// sets would each add their own.)
use std::collections::HashMap;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::{Poll, Waker};

/// One indexed memory.
#[derive(Clone, Debug)]
struct Entry {
    size: f64,
    /// Position in the last walk (ties of mtime keep walk order, as the scan does).
    order: u32,
    /// The last full pass that listed it.
    pass: u32,
    /// The manifest header (its `body_head` emptied once tokenised).
    header: MemoryHeader,
    /// FNV-1a of the text semantic recall embeds for it (see [`super::semantic::embed_text`]).
    embed_hash: u128,
}

/// One memory of [`RecallIndex::load_bulk`].
pub(crate) struct BulkMemory {
    pub(crate) header: MemoryHeader,
    pub(crate) size: f64,
    pub(crate) order: u32,
    pub(crate) embed_hash: u128,
    pub(crate) lens: [u32; FIELDS],
}

/// A candidate of semantic recall (see [`RecallIndex::scored`]).
#[derive(Clone, Debug)]
pub struct ScoredMemory {
    /// Its header (`body_head` empty).
    pub header: MemoryHeader,
    /// Its file size (to read its head again).
    pub size: f64,
    /// Its calibrated lexical score.
    pub lexical: f32,
    /// [`super::semantic::text_hash`] of its embedding text.
    pub embed_hash: String,
}

/// Every memory of a directory (or of a header list), ranked as a whole.
///
/// ```
/// use memdir::recall::{RankerParams, RecallIndex};
/// use memdir::MemoryHeader;
/// let h = |f: &str, d: &str, t: f64| MemoryHeader {
///     filename: f.into(), file_path: format!("/m/{f}"), mtime_ms: t,
///     description: Some(d.into()), memory_type: None, name: None, body_head: String::new(),
/// };
/// let mut index = RecallIndex::new(RankerParams::default());
/// index.upsert(h("old.md", "Kafka topic naming for payments", 1.0), 10.0, 0);
/// index.upsert(h("new.md", "Prefers terse answers", 2.0), 10.0, 1);
/// let hits = index.rank("kafka topic names", 5, &[]);
/// assert_eq!(hits[0].file_path, "/m/old.md");
/// assert_eq!(index.newest(&[], 1)[0].filename, "new.md");
/// ```
#[derive(Clone, Debug)]
pub struct RecallIndex {
    ranker: RankerIndex,
    /// By the ranker's slot of the memory (its filename → slot map is the index's too: one
    /// look-up structure, not two).
    entries: Vec<Option<Entry>>,
    /// How many entries are `Some`.
    live: usize,
    /// The current full pass (see [`RecallIndex::begin_pass`]).
    pass: u32,
    /// Memories read (not taken from the cache) or forgotten so far: the persisted cache is
    /// rewritten when this moved (see [`super::index_cache`]).
    edits: u32,
}

impl RecallIndex {
    /// An empty index ranking with `params`.
    pub fn new(params: RankerParams) -> Self {
        RecallIndex {
            ranker: RankerIndex::new(params),
            entries: Vec::new(),
            live: 0,
            pass: 0,
            edits: 0,
        }
    }

    /// An index of `headers` (their `body_head` is what the ranker reads), in the given order;
    /// of headers with the same filename only the first is kept.
    ///
    /// ```
    /// use memdir::recall::{RankerParams, RecallIndex};
    /// let index = RecallIndex::from_headers(Vec::new(), RankerParams::default());
    /// assert!(index.is_empty());
    /// ```
    pub fn from_headers(headers: Vec<MemoryHeader>, params: RankerParams) -> Self {
        let mut index = RecallIndex::new(params);
        for (order, header) in headers.into_iter().enumerate() {
            if index.entry(&header.filename).is_none() {
                index.upsert(header, 0.0, order as u32);
            }
        }
        index
    }

    /// How many memories the index holds.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when the index holds no memory.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// True when the index never held a memory (a bulk load may fill it).
    pub(crate) fn is_new(&self) -> bool {
        self.entries.is_empty()
    }

    /// True when the memory at `rel` is indexed with this size and mtime.
    pub fn is_current(&self, rel: &str, size: f64, mtime_ms: f64) -> bool {
        self.entry(rel)
            .is_some_and(|e| e.size == size && e.header.mtime_ms == mtime_ms)
    }

    fn entry(&self, rel: &str) -> Option<&Entry> {
        let (slot, _) = self.ranker.doc_slot(rel)?;
        self.entries.get(slot as usize)?.as_ref()
    }

    fn entry_mut(&mut self, rel: &str) -> Option<&mut Entry> {
        let (slot, _) = self.ranker.doc_slot(rel)?;
        self.entries.get_mut(slot as usize)?.as_mut()
    }

    /// Every indexed memory.
    fn all(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().flatten()
    }

    /// Start a full pass: the memories it does not [`RecallIndex::listed`] or upsert are
    /// forgotten by [`RecallIndex::sweep`].
    pub fn begin_pass(&mut self) {
        self.pass = self.pass.wrapping_add(1);
    }

    /// The current pass listed `rel` at walk position `order`; true when it is indexed with
    /// this size and mtime (nothing to read).
    pub fn listed(&mut self, rel: &str, size: f64, mtime_ms: f64, order: u32) -> bool {
        let pass = self.pass;
        match self.entry_mut(rel) {
            Some(e) => {
                e.pass = pass;
                e.order = order;
                e.size == size && e.header.mtime_ms == mtime_ms
            }
            None => false,
        }
    }

    /// Forget every memory the current pass did not list.
    pub fn sweep(&mut self) {
        let pass = self.pass;
        let gone: Vec<String> = self
            .all()
            .filter(|e| e.pass != pass)
            .map(|e| e.header.filename.clone())
            .collect();
        for rel in gone {
            self.remove(&rel);
        }
    }

    /// Index a memory read from a file of `size` bytes, found at walk position `order`
    /// (replacing the one with the same filename). Tokenises `header.body_head`, then drops it.
    pub fn upsert(&mut self, mut header: MemoryHeader, size: f64, order: u32) {
        self.forget(&header.filename);
        self.ranker.upsert((&header).into());
        let embed_hash = fnv1a_128(super::semantic::embed_text(&header).as_bytes());
        header.body_head = String::new();
        self.edits = self.edits.wrapping_add(1);
        self.put(header, size, order, embed_hash);
    }

    /// Index memories from the persisted cache in one go (see [`RankerIndex::load_bulk`]):
    /// `memories[k]` in slot `k` (`None`: a free slot), each with its header (no
    /// `body_head`), size, walk position, embedding-text hash and field lengths, and `lists[i]`
    /// the posting list of term `ids[i]`, as [`RecallIndex::upsert`] would have indexed them
    /// from their text. Refused, with nothing done and the memories given back, when the index
    /// is not new or the ranker refuses the load.
    pub(crate) fn load_bulk(
        &mut self,
        memories: Vec<Option<BulkMemory>>,
        ids: &[u32],
        lists: Vec<Vec<Posting>>,
    ) -> Result<(), Vec<Option<BulkMemory>>> {
        if !self.is_new() {
            return Err(memories);
        }
        let docs: Vec<Option<BulkDoc<'_>>> = memories
            .iter()
            .map(|m| {
                m.as_ref().map(|m| BulkDoc {
                    filename: &m.header.filename,
                    mtime_ms: m.header.mtime_ms,
                    lens: m.lens,
                })
            })
            .collect();
        let accepted = self.ranker.load_bulk(&docs, ids, lists);
        drop(docs);
        if !accepted {
            return Err(memories);
        }
        let pass = self.pass;
        self.entries.reserve(memories.len());
        self.entries.extend(memories.into_iter().map(|m| {
            m.map(|m| Entry {
                size: m.size,
                order: m.order,
                pass,
                header: m.header,
                embed_hash: m.embed_hash,
            })
        }));
        self.live = self.entries.iter().filter(|e| e.is_some()).count();
        Ok(())
    }

    /// The ranker, to intern the cache's terms.
    pub(crate) fn ranker_mut(&mut self) -> &mut RankerIndex {
        &mut self.ranker
    }

    /// How many memories were read or forgotten since the index was made.
    pub(crate) fn edits(&self) -> u32 {
        self.edits
    }

    /// Count one edit more: the persisted cache no longer matches the index.
    pub(crate) fn note_edit(&mut self) {
        self.edits = self.edits.wrapping_add(1);
    }

    /// Every indexed memory: its header (no `body_head`), size, embedding-text hash and walk
    /// position.
    pub(crate) fn cache_entries(&self) -> impl Iterator<Item = (&MemoryHeader, f64, u128, u32)> {
        self.all()
            .map(|e| (&e.header, e.size, e.embed_hash, e.order))
    }

    /// Keep `header`'s entry at the slot the ranker just gave its filename.
    fn put(&mut self, header: MemoryHeader, size: f64, order: u32, embed_hash: u128) {
        if let Some((slot, _)) = self.ranker.doc_slot(&header.filename) {
            self.put_at(slot as usize, header, size, order, embed_hash);
        }
    }

    /// [`RecallIndex::put`] for the ranker's slot `slot` of `header`.
    fn put_at(
        &mut self,
        slot: usize,
        header: MemoryHeader,
        size: f64,
        order: u32,
        embed_hash: u128,
    ) {
        if self.entries.len() <= slot {
            self.entries.resize_with(slot + 1, || None);
        }
        if let Some(place) = self.entries.get_mut(slot) {
            if place.is_none() {
                self.live += 1;
            }
            *place = Some(Entry {
                size,
                order,
                pass: self.pass,
                header,
                embed_hash,
            });
        }
    }

    /// Drop the entry of `rel` (not the ranker's document); false if there was none.
    fn forget(&mut self, rel: &str) -> bool {
        let Some((slot, _)) = self.ranker.doc_slot(rel) else {
            return false;
        };
        match self.entries.get_mut(slot as usize).and_then(Option::take) {
            Some(_) => {
                self.live -= 1;
                true
            }
            None => false,
        }
    }

    /// Forget the memory at `rel`; false if it was not indexed.
    pub fn remove(&mut self, rel: &str) -> bool {
        let known = self.forget(rel);
        self.ranker.remove(rel);
        if known {
            self.edits = self.edits.wrapping_add(1);
        }
        known
    }

    /// True when some memory is indexed below the directory `dir_rel` (relative, no trailing
    /// `/`).
    pub fn has_under(&self, dir_rel: &str) -> bool {
        let prefix = format!("{dir_rel}/");
        self.all().any(|e| e.header.filename.starts_with(&prefix))
    }

    /// The header of `rel`, if indexed (with an empty `body_head`).
    pub fn header(&self, rel: &str) -> Option<&MemoryHeader> {
        self.entry(rel).map(|e| &e.header)
    }

    /// How many memories are not in `surfaced` (absolute paths, sorted).
    pub fn candidates(&self, surfaced: &[&str]) -> usize {
        self.all()
            .filter(|e| !is_in(surfaced, &e.header.file_path))
            .count()
    }

    /// The entries not in `surfaced` (sorted), newest first, equal times in walk order, then by
    /// file name: the scan's order.
    fn newest_first(&self, surfaced: &[&str]) -> Vec<&Entry> {
        let mut all: Vec<&Entry> = self
            .all()
            .filter(|e| !is_in(surfaced, &e.header.file_path))
            .collect();
        crate::sort::sort_by(&mut all, |a, b| {
            b.header
                .mtime_ms
                .total_cmp(&a.header.mtime_ms)
                .then(a.order.cmp(&b.order))
                .then_with(|| a.header.filename.cmp(&b.header.filename))
        });
        all
    }

    /// The newest `limit` memories not in `surfaced` (sorted), newest first, equal times in walk
    /// order: the scan's order.
    pub fn newest(&self, surfaced: &[&str], limit: usize) -> Vec<MemoryHeader> {
        let all = self.newest_first(surfaced);
        all.into_iter()
            .take(limit)
            .map(|e| e.header.clone())
            .collect()
    }

    /// The memories not in `surfaced` (sorted absolute paths), newest first, each with its
    /// file size, its calibrated lexical score for `query` (no cut-off; see
    /// [`RankerIndex::calibrated_scores`]) and the hash of its embedding text: what semantic
    /// recall fuses.
    pub fn scored(&self, query: &str, surfaced: &[&str]) -> Vec<ScoredMemory> {
        let scores = self.ranker.calibrated_scores(query);
        let by_name: HashMap<String, usize> = scores
            .iter()
            .enumerate()
            .map(|(i, (f, _))| ((*f).to_owned(), i))
            .collect();
        let all = self.newest_first(surfaced);
        all.into_iter()
            .map(|e| ScoredMemory {
                header: e.header.clone(),
                size: e.size,
                lexical: by_name
                    .get(&e.header.filename)
                    .and_then(|&i| scores.get(i))
                    .map_or(0.0, |&(_, s)| s),
                embed_hash: format!("{:032x}", e.embed_hash),
            })
            .collect()
    }

    /// The ranker over every indexed memory.
    pub fn ranker(&self) -> &RankerIndex {
        &self.ranker
    }

    /// The ranker's answer for `query` among the memories not in `surfaced` (sorted absolute
    /// paths): at most `limit`, best first. The best *remaining* memory sets the ranker's
    /// `min_relative` cut-off; the surfaced ones still count in the idf and the yardstick (the
    /// index is not rebuilt per query).
    pub fn rank(&mut self, query: &str, limit: usize, surfaced: &[&str]) -> Vec<MemoryHeader> {
        let hidden = self.hidden(surfaced);
        if hidden.is_empty() {
            let hits = self.ranker.rank(query, limit);
            return self.headers_of(hits.iter().map(|h| h.filename.as_str()));
        }
        let params = self.ranker.params().clone();
        self.ranker.set_params(RankerParams {
            min_relative: 0.0,
            ..params.clone()
        });
        let hits = self
            .ranker
            .explain(query, limit.saturating_add(hidden.len()));
        self.ranker.set_params(params.clone());
        let kept: Vec<_> = hits
            .into_iter()
            .filter(|h| !is_in_owned(&hidden, &h.filename))
            .collect();
        let top = kept.first().map_or(0.0, |h| h.raw_score);
        self.headers_of(
            kept.iter()
                .filter(|h| h.raw_score >= params.min_relative * top)
                .take(limit)
                .map(|h| h.filename.as_str()),
        )
    }

    /// The `budget` memories most worth showing an LLM for `query`, among those not in
    /// `surfaced`: every memory that matches anything, best first, then the rest, newest first.
    pub fn prefilter(
        &mut self,
        query: &str,
        budget: usize,
        surfaced: &[&str],
    ) -> Vec<MemoryHeader> {
        let hidden = self.hidden(surfaced);
        let params = self.ranker.params().clone();
        self.ranker.set_params(RankerParams {
            min_relative: 0.0,
            min_score: 0.0,
            ..params.clone()
        });
        let hits = self
            .ranker
            .explain(query, budget.saturating_add(hidden.len()));
        self.ranker.set_params(params);
        let mut shown = self.headers_of(
            hits.iter()
                .map(|h| h.filename.as_str())
                .filter(|f| !is_in_owned(&hidden, f))
                .take(budget),
        );
        if shown.len() < budget {
            let mut taken: Vec<String> = shown.iter().map(|h| h.filename.clone()).collect();
            crate::sort::sort(&mut taken);
            let rest = self
                .newest(surfaced, usize::MAX)
                .into_iter()
                .filter(|h| !is_in_owned(&taken, &h.filename));
            let room = budget - shown.len();
            shown.extend(rest.take(room));
        }
        shown
    }

    /// Filenames of the indexed memories in `surfaced`, sorted.
    fn hidden(&self, surfaced: &[&str]) -> Vec<String> {
        if surfaced.is_empty() {
            return Vec::new();
        }
        let mut hidden: Vec<String> = self
            .all()
            .filter(|e| is_in(surfaced, &e.header.file_path))
            .map(|e| e.header.filename.clone())
            .collect();
        crate::sort::sort(&mut hidden);
        hidden
    }

    fn headers_of<'a>(&self, filenames: impl Iterator<Item = &'a str>) -> Vec<MemoryHeader> {
        filenames
            .filter_map(|f| self.entry(f).map(|e| e.header.clone()))
            .collect()
    }
}

/// FNV-1a, 128-bit, as [`super::semantic::fnv128`] computes it, in 64-bit halves: the prime is
/// 2^88 + 0x13b, so a product is a shift and a multiplication by a 9-bit number. (A `u128`
/// product is a call to a 128-bit multiplication routine in wasm, which made this hash a tenth
/// of indexing a directory.)
fn fnv1a_128(bytes: &[u8]) -> u128 {
    const LOW: u64 = 0x13b;
    let (mut hi, mut lo): (u64, u64) = (0x6c62_272e_07bb_0142, 0x62b8_2175_6295_c58d);
    for &b in bytes {
        lo ^= u64::from(b);
        // lo × 0x13b as 128 bits: two 32-bit halves times a 9-bit number.
        let a = (lo & 0xffff_ffff) * LOW;
        let c = (lo >> 32) * LOW;
        let low = a.wrapping_add(c << 32);
        let carry = u64::from(low < a);
        hi = hi
            .wrapping_mul(LOW)
            .wrapping_add(c >> 32)
            .wrapping_add(carry)
            .wrapping_add(lo << 24);
        lo = low;
    }
    (u128::from(hi) << 64) | u128::from(lo)
}

fn is_in(sorted: &[&str], path: &str) -> bool {
    sorted.binary_search(&path).is_ok()
}

fn is_in_owned(sorted: &[String], name: &str) -> bool {
    sorted.binary_search_by(|s| s.as_str().cmp(name)).is_ok()
}

/// Changes reported since the last refresh: paths (relative to the memory directory) to look
/// at again, or the whole directory.
#[derive(Debug, Default)]
struct Changes {
    everything: Cell<bool>,
    paths: RefCell<Vec<String>>,
    /// The host watch is running (so no report means no change).
    watching: Cell<bool>,
}

/// Where the host watch stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WatchState {
    /// Not asked yet.
    Untried,
    /// Running.
    Active,
    /// The host has none (or it failed or broke).
    Unavailable,
}

/// The changes one refresh takes over.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// List and stat the whole directory.
    pub(crate) everything: bool,
    /// Look at these paths again; re-read them even if their stat looks unchanged (sorted,
    /// distinct).
    pub(crate) paths: Vec<String>,
}

/// A [`RecallIndex`] kept current across recalls: owned by a [`crate::Memdir`] and handed to
/// its [`crate::recall::Recaller`].
///
/// ```
/// use memdir::recall::{LiveIndex, RankerParams};
/// let live = LiveIndex::new("/m/", RankerParams::default());
/// live.note_change("/m/a.md"); // this instance wrote a.md
/// live.invalidate(); // something changed, nobody knows what
/// assert_eq!(live.len(), 0);
/// ```
pub struct LiveIndex {
    dir: String,
    index: RefCell<RecallIndex>,
    changes: Rc<Changes>,
    watch: RefCell<Option<HostWatch>>,
    watch_state: Cell<WatchState>,
    gate: Gate,
    cache: Cell<CacheMark>,
}

impl LiveIndex {
    /// An empty index of the memory directory `dir` (absolute, ending with `/`); the first
    /// recall reads the whole directory.
    pub fn new(dir: impl Into<String>, params: RankerParams) -> Self {
        let changes = Changes::default();
        changes.everything.set(true);
        LiveIndex {
            dir: dir.into(),
            index: RefCell::new(RecallIndex::new(params)),
            changes: Rc::new(changes),
            watch: RefCell::new(None),
            watch_state: Cell::new(WatchState::Untried),
            gate: Gate::default(),
            cache: Cell::new(CacheMark::default()),
        }
    }

    /// How many memories are indexed.
    pub fn len(&self) -> usize {
        self.index.borrow().len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `path` (absolute, or relative to the directory) changed: the next recall looks at it
    /// again and re-reads it, even if its size and mtime look the same.
    pub fn note_change(&self, path: &str) {
        note(&self.changes, &self.dir, WatchEvent::Changed(path));
    }

    /// Something in the directory changed: the next recall lists and stats it all (and re-reads
    /// only what changed).
    pub fn invalidate(&self) {
        self.changes.everything.set(true);
    }

    /// A listener for the host's watch that records into this index's changes (it holds them
    /// weakly: it outlives nothing).
    pub(crate) fn listener(&self) -> WatchListener {
        let changes = Rc::downgrade(&self.changes);
        let dir = self.dir.clone();
        Rc::new(move |event| {
            if let Some(changes) = changes.upgrade() {
                note(&changes, &dir, event);
            }
        })
    }

    pub(crate) fn watch_state(&self) -> WatchState {
        self.watch_state.get()
    }

    /// Keep the host watch (`None`: the host has none).
    pub(crate) fn set_watch(&self, watch: Option<HostWatch>) {
        self.watch_state.set(if watch.is_some() {
            WatchState::Active
        } else {
            WatchState::Unavailable
        });
        self.changes.watching.set(watch.is_some());
        *self.watch.borrow_mut() = watch;
    }

    /// Take over the changes reported so far. Without a running watch, the whole directory.
    pub(crate) fn take_pending(&self) -> Pending {
        if !self.changes.watching.get() {
            if self.watch_state.get() == WatchState::Active {
                // The watch broke: stop it and go back to a stat pass per recall.
                self.set_watch(None);
            }
            self.changes.everything.set(true);
        }
        let mut paths = std::mem::take(&mut *self.changes.paths.borrow_mut());
        crate::sort::sort(&mut paths);
        paths.dedup();
        Pending {
            everything: self.changes.everything.replace(false),
            paths,
        }
    }

    /// Give back changes a refresh could not finish.
    pub(crate) fn restore_pending(&self, pending: Pending) {
        if pending.everything {
            self.changes.everything.set(true);
        }
        self.changes.paths.borrow_mut().extend(pending.paths);
    }

    /// Where this instance stands with the persisted index cache.
    pub(crate) fn cache_mark(&self) -> CacheMark {
        self.cache.get()
    }

    pub(crate) fn set_cache_mark(&self, mark: CacheMark) {
        self.cache.set(mark);
    }

    /// The index (borrow it only between `await`s).
    pub(crate) fn index(&self) -> &RefCell<RecallIndex> {
        &self.index
    }

    /// Wait until no other refresh runs; the turn ends when the guard drops.
    pub(crate) async fn turn(&self) -> GateGuard<'_> {
        self.gate.enter().await
    }
}

impl std::fmt::Debug for LiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveIndex")
            .field("dir", &self.dir)
            .field("len", &self.len())
            .field("watch", &self.watch_state.get())
            .finish()
    }
}

/// Record one notification. A path outside the directory, or one that is not plain, counts as
/// a change of everything.
fn note(changes: &Changes, dir: &str, event: WatchEvent<'_>) {
    let path = match event {
        WatchEvent::Changed(path) => path,
        WatchEvent::Unknown => {
            changes.everything.set(true);
            return;
        }
        WatchEvent::Lost => {
            changes.watching.set(false);
            changes.everything.set(true);
            return;
        }
    };
    let rel = if path.starts_with('/') {
        match path.strip_prefix(dir) {
            Some(rel) => rel,
            None => {
                changes.everything.set(true);
                return;
            }
        }
    } else {
        path.strip_prefix("./").unwrap_or(path)
    };
    let rel = rel.trim_end_matches('/');
    if crate::library_files::library_file_or_its_temp(rel).is_some() {
        // The library's own files at the top (`LIBRARY_FILES`: index cache, vectors,
        // journal, locks, and their temp files): never a memory, and the cache's own rewrite
        // must not wake a refresh.
        return;
    }
    let plain = !rel.is_empty()
        && rel
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
    if plain {
        // A poisoned borrow cannot happen (never held across a call out), but stay safe.
        match changes.paths.try_borrow_mut() {
            Ok(mut paths) => paths.push(rel.to_owned()),
            Err(_) => changes.everything.set(true),
        }
    } else {
        changes.everything.set(true);
    }
}

/// One refresh at a time: an async mutex without a lock-free queue (single-threaded).
#[derive(Debug, Default)]
struct Gate {
    busy: Cell<bool>,
    waiters: RefCell<Vec<Waker>>,
}

impl Gate {
    async fn enter(&self) -> GateGuard<'_> {
        poll_fn(|cx| {
            if self.busy.get() {
                self.waiters.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            } else {
                self.busy.set(true);
                Poll::Ready(())
            }
        })
        .await;
        GateGuard { gate: self }
    }
}

/// A turn at the [`Gate`]; the next waiter goes when it drops.
pub(crate) struct GateGuard<'a> {
    gate: &'a Gate,
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        self.gate.busy.set(false);
        let waiters = std::mem::take(&mut *self.gate.waiters.borrow_mut());
        for waker in waiters {
            waker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(f: &str, d: &str, t: f64) -> MemoryHeader {
        MemoryHeader {
            filename: f.into(),
            file_path: format!("/m/{f}"),
            mtime_ms: t,
            description: Some(d.into()),
            memory_type: None,
            name: None,
            body_head: String::new(),
        }
    }

    #[test]
    fn the_split_hash_is_fnv1a_128() {
        let mut rng = crate::test_rng::XorShift(0x1234_5678_9abc_def1);
        let mut texts: Vec<Vec<u8>> = vec![Vec::new(), b"a".to_vec(), vec![0xff; 64]];
        for n in 0..300 {
            texts.push((0..n).map(|_| rng.next() as u8).collect());
        }
        for t in &texts {
            let text = String::from_utf8_lossy(t);
            assert_eq!(
                fnv1a_128(text.as_bytes()),
                crate::recall::semantic::fnv128(&text),
                "{t:?}"
            );
        }
        // The published FNV-1a 128 of "a".
        assert_eq!(fnv1a_128(b"a"), 0xd228cb696f1a8caf78912b704e4a8964);
    }

    #[test]
    fn surfaced_memories_are_skipped_without_taking_a_place() {
        let docs = [
            ("a.md", "kafka topic naming for payment events"),
            (
                "b.md",
                "kafka topic naming for payment events in the staging cluster",
            ),
            ("c.md", "terse answers"),
        ];
        let mut all = RecallIndex::new(RankerParams::default());
        for (i, (f, d)) in docs.iter().enumerate() {
            all.upsert(header(f, d, i as f64), 1.0, i as u32);
        }
        let names = |hs: Vec<MemoryHeader>| hs.into_iter().map(|h| h.filename).collect::<Vec<_>>();
        let query = "kafka topic naming for payment events";
        assert_eq!(names(all.rank(query, 5, &[])), ["a.md", "b.md"]);
        assert_eq!(names(all.rank(query, 1, &[])), ["a.md"]);
        // Hidden: never returned, and it does not take a place of the limit.
        assert_eq!(names(all.rank(query, 1, &["/m/a.md"])), ["b.md"]);
        assert!(all.rank(query, 5, &["/m/a.md", "/m/b.md"]).is_empty());
        // Parameters are restored.
        assert_eq!(all.ranker.params(), &RankerParams::default());
    }

    #[test]
    fn prefilter_fills_with_the_newest() {
        let mut index = RecallIndex::new(RankerParams::default());
        for i in 0..10u32 {
            index.upsert(
                header(&format!("n{i}.md"), "misc note", f64::from(i)),
                1.0,
                i,
            );
        }
        index.upsert(header("k.md", "kafka topics", -1.0), 1.0, 10);
        let shown = index.prefilter("kafka", 3, &["/m/n9.md"]);
        let names: Vec<&str> = shown.iter().map(|h| h.filename.as_str()).collect();
        assert_eq!(names, ["k.md", "n8.md", "n7.md"]);
    }

    #[test]
    fn notes_resolve_paths() {
        let live = LiveIndex::new("/m/", RankerParams::default());
        let _ = live.take_pending();
        live.set_watch(Some(HostWatch::new(|| {})));
        live.note_change("/m/team/a.md");
        live.note_change("./b.md");
        let p = live.take_pending();
        assert!(!p.everything);
        assert_eq!(
            p.paths.iter().map(String::as_str).collect::<Vec<_>>(),
            ["b.md", "team/a.md"]
        );
        for odd in ["/elsewhere/a.md", "../x.md", "", "a//b.md"] {
            live.note_change(odd);
            assert!(live.take_pending().everything, "{odd}");
        }
        (live.listener())(WatchEvent::Lost);
        assert!(live.take_pending().everything);
        assert_eq!(live.watch_state(), WatchState::Unavailable);
    }
}
