//! The recall index persisted between instances ([`INDEX_CACHE_NAME`]): what the index keeps
//! for each memory (manifest header, embedding-text hash, the ranker's term statistics), keyed
//! by (path, size, mtime), so that the first recall of a new instance reads only the files that
//! changed since some instance last wrote it. Pure but for `read`: [`crate::recall::Recaller`]
//! does its I/O.
//!
//! It is a cache, never trusted blindly: a file from another format, tokeniser (see
//! [`fingerprint`]) or directory, a torn or altered file (length and a word-wise FNV-1a
//! checksum of the body), or anything that does not parse is ignored whole, and the index is
//! built by reading the memories as without it. An entry is used only for a file the directory
//! walk listed with the same size and mtime, at the walk's own path: nothing in the cache names
//! what is read.
//!
//! Format 3 (UTF-8 text, since the store writes strings, but made of numbers): a header line
//! `memdir-index 3 <fingerprint> <directory hash> <checksum> <body length>`, then the body, a
//! run of numbers in printable base 32 (one byte per 5 bits) and strings (their byte length, then
//! their bytes as they are). First the term count and the terms (sorted, distinct); then the
//! entry count and the entries, each ending with a newline, in the walk order of the instance
//! that wrote the file (so a new instance's walk meets them in turn); then, term by term, its
//! posting list. An entry is its path, size and mtime (their `f64` bits reversed, so that the
//! low zero bits cost nothing), type (`0` none), name and description (`0` absent, else their
//! length + 1 and bytes), embedding-text hash (two halves) and four field lengths. A posting
//! list is its length, then for each memory that has the term, in entry order: the gap from the
//! previous entry number (plus one), doubled, plus one when the term's counts per field follow
//! (any but one found once in the body only): one number
//! `body << 7 | description << 5 | name << 3 | filename << 1` when the first three are below 4,
//! else `1` and the four counts. Term-major, so that a load moves each list into the ranker as
//! it was read (entry `k` in slot `k`), with no pass that regroups a million postings.

use super::index::{BulkMemory, RecallIndex};
use super::ranker::{Posting, RankerIndex, RankerParams, FIELDS};
use crate::host::FileSystem;
use crate::types::{MemoryHeader, MemoryType};
use std::cell::{Cell, RefCell};
use std::fmt::Write as _;

/// A file the directory walk listed: its path relative to the memory directory, and its stat.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Listed<'f> {
    pub(crate) rel: &'f str,
    pub(crate) size: f64,
    pub(crate) mtime_ms: f64,
}

/// A file the walk listed and the cache holds unchanged, at entry `at`: its strings move into
/// the index's header rather than being copied (ten thousand files: twenty thousand strings).
#[derive(Debug, PartialEq)]
pub(crate) struct Hit {
    pub(crate) rel: String,
    pub(crate) path: String,
    pub(crate) size: f64,
    pub(crate) mtime_ms: f64,
    /// The cache entry ([`IndexCache::position`]).
    pub(crate) at: usize,
    /// Walk position.
    pub(crate) order: u32,
}

/// The index cache's file name inside the memory directory: hidden and not `.md`, so the scan,
/// lint, the listing and team sync never see it (as the vectors' `.memdir-vectors`).
///
/// ```
/// assert_eq!(memdir::recall::index_cache::INDEX_CACHE_NAME, ".memdir-index");
/// ```
pub const INDEX_CACHE_NAME: &str = ".memdir-index";

const MAGIC: &str = "memdir-index 3";

/// The largest cache file read (bytes); a larger one is ignored (the index is built by reading).
const MAX_CACHE_BYTES: f64 = (1u64 << 30) as f64;

/// Rewrite the cache after this many memories were read or forgotten since the last write...
const SAVE_EVERY_EDITS: u32 = 64;
/// ...or when the last write is this old (ms), so a busy instance does not rewrite it per recall.
const SAVE_EVERY_MS: f64 = 30_000.0;

/// Where an instance stands with the persisted cache.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CacheMark {
    /// The cache was looked for (on the instance's first full pass).
    pub(crate) tried: bool,
    /// [`RecallIndex::edits`] when the cache last matched the index.
    pub(crate) saved_edits: u32,
    /// When this instance last wrote it (ms since the epoch; `None`: never).
    pub(crate) saved_at_ms: Option<f64>,
}

impl CacheMark {
    /// True when the index differs from the cache and a rewrite is due: the instance never
    /// wrote it, or enough memories changed, or its last write is old enough.
    pub(crate) fn due(&self, edits: u32, now_ms: f64) -> bool {
        let changed = edits.wrapping_sub(self.saved_edits);
        changed > 0
            && match self.saved_at_ms {
                None => true,
                Some(at) => {
                    changed >= SAVE_EVERY_EDITS || now_ms - at >= SAVE_EVERY_MS || now_ms < at
                }
            }
    }
}

/// The bytes of the cache file at `path`, if it reads: through the host's `readHead` where it
/// has one (bytes cross into wasm as they are, with no UTF-8 string made and encoded again on
/// the way), else `readFile`.
pub(crate) async fn read<F: FileSystem>(fs: &F, path: &str) -> Option<Vec<u8>> {
    if fs.capabilities().read_head {
        let size = fs.stat(path).await.ok()?.size;
        if !(0.0..=MAX_CACHE_BYTES).contains(&size) {
            return None;
        }
        // One byte more than the stat said: a file that grew since reads longer than its
        // header says, and is ignored.
        if let Ok(bytes) = fs.read_head(path, size as usize + 1).await {
            return Some(bytes);
        }
    }
    fs.read_file(path).await.ok().map(String::into_bytes)
}

/// One memory as the cache holds it (strings borrowed from the file's bytes).
#[derive(Debug)]
#[cfg_attr(test, derive(PartialEq))]
struct Cached<'a> {
    rel: &'a str,
    size: f64,
    mtime_ms: f64,
    memory_type: Option<MemoryType>,
    /// Owned already: made while decoding (in a first pass's stat waits), moved by the load.
    name: Option<String>,
    description: Option<String>,
    embed_hash: u128,
    lens: [u32; FIELDS],
    used: bool,
}

/// A decoded cache, loaded into a new [`RecallIndex`] at once ([`IndexCache::apply_bulk`]).
#[derive(Debug)]
#[cfg_attr(test, derive(PartialEq))]
pub(crate) struct IndexCache<'a> {
    terms: Vec<&'a str>,
    /// The ranker's id of each cache term: all interned by the bulk load (into a new index, a
    /// term no loaded entry uses has no postings, which the ranker reads as no term).
    ids: Vec<u32>,
    /// Each cache term's posting list, its slots the entry numbers (ascending); moved into the
    /// index by the load.
    lists: Vec<Vec<Posting>>,
    /// In the writer's walk order.
    entries: Vec<Cached<'a>>,
    /// Where the walk is expected next: an unchanged directory lists its files in the order the
    /// writer's walk did, so each look-up is one comparison.
    next: Cell<usize>,
    /// Entry positions sorted by path, made at the first look-up the walk order misses.
    by_rel: RefCell<Option<Vec<u32>>>,
}

impl<'a> IndexCache<'a> {
    /// How many memories the cache holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Where the cache holds `file` with its current size and mtime (not yet applied).
    pub(crate) fn position(&self, file: Listed<'_>) -> Option<usize> {
        let guess = self.next.get();
        let at = match self.entries.get(guess) {
            Some(e) if e.rel == file.rel => guess,
            _ => self.find(file.rel)?,
        };
        self.next.set(at + 1);
        let e = self.entries.get(at)?;
        (!e.used && e.size == file.size && e.mtime_ms == file.mtime_ms).then_some(at)
    }

    /// The position of an entry for `rel`, by binary search over the path order.
    fn find(&self, rel: &str) -> Option<usize> {
        let rel_of = |i: u32| self.entries.get(i as usize).map_or("", |e| e.rel);
        let mut by_rel = self.by_rel.borrow_mut();
        let sorted = by_rel.get_or_insert_with(|| {
            let mut all: Vec<u32> = (0..self.entries.len() as u32).collect();
            crate::sort::sort_by(&mut all, |&a, &b| rel_of(a).cmp(rel_of(b)));
            all
        });
        let k = sorted.binary_search_by(|&i| rel_of(i).cmp(rel)).ok()?;
        sorted.get(k).map(|&i| i as usize)
    }

    /// Index every one of `hits` (each found in the cache at its [`IndexCache::position`]) in
    /// one bulk load into `index`, which must be new ([`RecallIndex::load_bulk`]): entry `k`
    /// goes to slot `k`, and the slots of entries not loaded are left free for the files read
    /// after. Refused, with nothing done and the hits given back, when the index is not new, a
    /// position is not an unused entry for that file or comes twice, or the cache's terms are
    /// not distinct ranker terms (then the files are read instead). The cache's posting lists
    /// go into the index: a cache loads once.
    pub(crate) fn apply_bulk(
        &mut self,
        index: &mut RecallIndex,
        hits: Vec<Hit>,
    ) -> Result<(), Vec<Hit>> {
        if !index.is_new() || self.lists.len() != self.terms.len() {
            return Err(hits);
        }
        let mut taken = vec![false; self.entries.len()];
        for hit in &hits {
            let fits = self
                .entries
                .get(hit.at)
                .is_some_and(|e| !e.used && e.rel == hit.rel);
            match taken.get_mut(hit.at) {
                Some(t) if fits && !*t => *t = true,
                _ => return Err(hits),
            }
        }
        if let Some(rest) = self.terms.get(self.ids.len()..).filter(|r| !r.is_empty()) {
            // The terms not interned while decoding. Distinct cache terms must be distinct
            // ranker terms (an entry's ids distinct): two terms the ranker keys alike (a
            // hand-made file could hold `\0ab` and `ab`) refuse the load.
            let before = index.ranker_mut().term_count();
            let more = index.ranker_mut().intern_all(rest);
            if index.ranker_mut().term_count() - before != rest.len() {
                return Err(hits);
            }
            self.ids.extend(more);
        }
        let loaded = hits.len();
        // The hit for each entry, by entry.
        let mut load: Vec<Option<Hit>> = Vec::new();
        load.resize_with(self.entries.len(), || None);
        for hit in hits {
            if let Some(place) = load.get_mut(hit.at) {
                *place = Some(hit);
            }
        }
        // (A loaded entry's strings move into its header: the cache loads once.)
        let memories: Vec<Option<BulkMemory>> = load
            .into_iter()
            .zip(&mut self.entries)
            .map(|(hit, entry)| {
                let hit = hit?;
                Some(BulkMemory {
                    header: MemoryHeader {
                        filename: hit.rel,
                        file_path: hit.path,
                        mtime_ms: hit.mtime_ms,
                        description: entry.description.take(),
                        memory_type: entry.memory_type,
                        name: entry.name.take(),
                        body_head: String::new(),
                    },
                    size: hit.size,
                    order: hit.order,
                    embed_hash: entry.embed_hash,
                    lens: entry.lens,
                })
            })
            .collect();
        let mut lists = std::mem::take(&mut self.lists);
        if loaded < self.entries.len() {
            // Postings of entries not loaded (files changed or gone) name free slots: out.
            for list in &mut lists {
                list.retain(|p| memories.get(p.slot as usize).is_some_and(Option::is_some));
            }
        }
        if let Err(memories) = index.load_bulk(memories, &self.ids, lists) {
            let back = memories.into_iter().enumerate().filter_map(|(at, m)| {
                let m = m?;
                Some(Hit {
                    rel: m.header.filename,
                    path: m.header.file_path,
                    size: m.size,
                    mtime_ms: m.header.mtime_ms,
                    at,
                    order: m.order,
                })
            });
            return Err(back.collect());
        }
        for (e, t) in self.entries.iter_mut().zip(taken) {
            e.used |= t;
        }
        if loaded < self.entries.len() {
            // The cache holds memories that changed or are gone: it is due for a rewrite even
            // when nothing is read (files only deleted), or every start would decode them again.
            index.note_edit();
        }
        Ok(())
    }

    /// Read a cache file written for the memory directory `dir`; `None` when it cannot be
    /// trusted whole (another format, tokeniser or directory, torn, altered, malformed).
    #[cfg(test)]
    pub(crate) fn decode(bytes: &'a [u8], dir: &str) -> Option<IndexCache<'a>> {
        Decoding::start(bytes, dir)?.finish()
    }
}

/// Where a [`Decoding`] is in the body.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Terms left to read.
    Terms(usize),
    /// Entries left to read (the entry count read).
    Entries(usize),
    /// Posting lists, one per term.
    Lists,
    Done,
    Failed,
}

/// A cache file being decoded a slice at a time ([`Decoding::step`]), so that a first pass can
/// decode it in the waits between its stat batches rather than after them;
/// [`IndexCache::decode`] runs one through at once.
pub(crate) struct Decoding<'a> {
    r: Reader<'a>,
    phase: Phase,
    terms: Vec<&'a str>,
    /// The ranker's ids of the first terms, interned ahead of the load
    /// ([`Decoding::intern_step`]).
    ids: Vec<u32>,
    /// Interning stopped at a term keyed like another (the load will refuse).
    intern_stopped: bool,
    entries: Vec<Cached<'a>>,
    lists: Vec<Vec<Posting>>,
}

impl<'a> Decoding<'a> {
    /// Check a cache file's header line, length and checksum for the memory directory `dir`;
    /// `None` when it is another format, tokeniser or directory, torn or altered.
    pub(crate) fn start(bytes: &'a [u8], dir: &str) -> Option<Decoding<'a>> {
        let end = bytes.iter().take(160).position(|&b| b == b'\n')?;
        let head = std::str::from_utf8(bytes.get(..end)?).ok()?;
        let body = bytes.get(end + 1..)?;
        let mut parts = head.strip_prefix(MAGIC)?.strip_prefix(' ')?.split(' ');
        let print = parse_hex(parts.next()?)?;
        let dir_hash = parse_hex(parts.next()?)?;
        let checksum = parse_hex(parts.next()?)?;
        let len = usize::try_from(parse_radix(parts.next()?, 10)?).ok()?;
        if parts.next().is_some()
            || print != fingerprint()
            || dir_hash != fnv64(dir.as_bytes())
            || len != body.len()
            || checksum != fnv64(body)
        {
            return None;
        }
        let mut r = Reader {
            bytes: body,
            pos: 0,
        };
        let n_terms = r.count()?;
        Some(Decoding {
            // Preallocation is bounded by what the bytes left can hold (a term takes at least
            // two bytes, an entry far more than 16): a count in a hostile file must not ask for
            // many times the file's size before the reads run out.
            terms: Vec::with_capacity(n_terms.min(r.left() / 2)),
            r,
            phase: Phase::Terms(n_terms),
            ids: Vec::new(),
            intern_stopped: false,
            entries: Vec::new(),
            lists: Vec::new(),
        })
    }

    /// Intern up to `n` more of the terms decoded so far into `index`, as the bulk load would
    /// ([`IndexCache::apply_bulk`] interns only those left): work that can fill the same
    /// waits as the decoding. Nothing when `index` is not new; the ids are dropped (and the
    /// load will be refused) when a term is keyed like one interned before.
    pub(crate) fn intern_step(&mut self, index: &mut RecallIndex, n: usize) {
        let from = self.ids.len();
        let to = from.saturating_add(n).min(self.terms.len());
        let Some(chunk) = self.terms.get(from..to).filter(|c| !c.is_empty()) else {
            return;
        };
        if self.intern_stopped || !index.is_new() {
            return;
        }
        let ranker = index.ranker_mut();
        let before = ranker.term_count();
        let ids = ranker.intern_all(chunk);
        if ranker.term_count() - before == chunk.len() {
            self.ids.extend(ids);
        } else {
            // Stop here: the load interns the rest, meets the same term and refuses.
            self.intern_stopped = true;
        }
    }

    /// Decode about `budget` bytes more (at least one term, entry or list); false once the
    /// whole body is decoded or found malformed.
    pub(crate) fn step(&mut self, budget: usize) -> bool {
        let stop = self.r.pos.saturating_add(budget);
        loop {
            match self.advance() {
                Some(true) if self.r.pos < stop => {}
                Some(true) => return true,
                Some(false) => return false,
                None => {
                    self.phase = Phase::Failed;
                    return false;
                }
            }
        }
    }

    /// One term, entry or posting list; false when the body is done.
    fn advance(&mut self) -> Option<bool> {
        let r = &mut self.r;
        match self.phase {
            Phase::Terms(0) => {
                let n_entries = r.count()?;
                self.entries.reserve(n_entries.min(r.left() / 16));
                self.phase = Phase::Entries(n_entries);
            }
            Phase::Terms(left) => {
                let term = r.str()?;
                // Strictly ascending: distinct, so no two cache terms are one ranker term. No
                // term the tokeniser makes starts with NUL (the ranker keys `\0ab` as `ab`).
                if self.terms.last().is_some_and(|last| *last >= term) || term.starts_with('\0') {
                    return None;
                }
                self.terms.push(term);
                self.phase = Phase::Terms(left - 1);
            }
            Phase::Entries(0) => {
                self.lists.reserve(self.terms.len());
                self.phase = Phase::Lists;
            }
            Phase::Entries(left) => {
                self.entries.push(r.entry()?);
                self.phase = Phase::Entries(left - 1);
            }
            Phase::Lists if self.lists.len() < self.terms.len() => {
                self.lists.push(r.postings(self.entries.len())?);
            }
            Phase::Lists => {
                if r.pos != r.bytes.len() {
                    return None;
                }
                self.phase = Phase::Done;
            }
            Phase::Done => return Some(false),
            Phase::Failed => return None,
        }
        Some(true)
    }

    /// The decoded cache, after decoding what is left; `None` when the body is malformed.
    pub(crate) fn finish(mut self) -> Option<IndexCache<'a>> {
        while self.step(usize::MAX) {}
        (self.phase == Phase::Done).then(|| IndexCache {
            ids: self.ids,
            lists: self.lists,
            terms: self.terms,
            entries: self.entries,
            next: Cell::new(0),
            by_rel: RefCell::new(None),
        })
    }
}

/// A cursor over a cache body.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn num(&mut self) -> Option<u64> {
        get_varint(self.bytes, &mut self.pos)
    }

    /// [`Reader::num`] inlined, for the term loop (a million calls for 10,000 memories).
    #[inline(always)]
    fn term_num(&mut self) -> Option<u64> {
        let mut at = self.pos;
        let v = get_varint(self.bytes, &mut at);
        self.pos = at;
        v
    }

    /// Bytes not read yet.
    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// A number of things each taking at least a byte of what is left (so nothing huge is
    /// allocated for a number that lies).
    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.num()?).ok()?;
        (n <= self.left()).then_some(n)
    }

    fn small<T: TryFrom<u64>>(&mut self) -> Option<T> {
        T::try_from(self.num()?).ok()
    }

    fn bytes_str(&mut self, n: usize) -> Option<&'a str> {
        let s = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        std::str::from_utf8(s).ok()
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = self.count()?;
        self.bytes_str(n)
    }

    fn optional(&mut self) -> Option<Option<&'a str>> {
        match usize::try_from(self.num()?).ok()? {
            0 => Some(None),
            n => self.bytes_str(n - 1).map(Some),
        }
    }

    fn float(&mut self) -> Option<f64> {
        Some(f64::from_bits(self.num()?.reverse_bits()))
    }

    /// One entry.
    fn entry(&mut self) -> Option<Cached<'a>> {
        let rel = self.str()?;
        let size = self.float()?;
        let mtime_ms = self.float()?;
        let memory_type = match usize::try_from(self.num()?).ok()? {
            0 => None,
            t => Some(*MemoryType::ALL.get(t - 1)?),
        };
        let name = self.optional()?.map(str::to_owned);
        let description = self.optional()?.map(str::to_owned);
        let embed_hash = (u128::from(self.num()?) << 64) | u128::from(self.num()?);
        let mut lens = [0u32; FIELDS];
        for l in &mut lens {
            *l = self.small()?;
        }
        if rel.is_empty() || self.bytes.get(self.pos) != Some(&b'\n') {
            return None;
        }
        self.pos += 1;
        Some(Cached {
            rel,
            size,
            mtime_ms,
            memory_type,
            name,
            description,
            embed_hash,
            lens,
            used: false,
        })
    }

    /// One term's posting list: its memories' entry numbers (ascending, each below
    /// `n_entries`) as slots, with their counts per field.
    fn postings(&mut self, n_entries: usize) -> Option<Vec<Posting>> {
        // At most one posting per entry (their numbers ascend below `n_entries`): a count that
        // claims more is refused before anything is allocated for it.
        let n = self.count().filter(|&n| n <= n_entries)?;
        // Filled in place (no push per posting: at opt-level "z" a push stays a call).
        let mut list = vec![
            Posting {
                slot: 0,
                tf: [0; FIELDS],
            };
            n
        ];
        let mut next = 0u64;
        for p in &mut list {
            let v = self.term_num()?;
            let entry = next.checked_add(v >> 1)?;
            if entry >= n_entries as u64 {
                return None;
            }
            let mut tf = [0, 0, 0, 1];
            if v & 1 == 1 {
                let packed = self.term_num()?;
                if packed & 1 == 0 {
                    let small = |shift: u32| ((packed >> shift) & 3) as u16;
                    tf = [
                        small(1),
                        small(3),
                        small(5),
                        u16::try_from(packed >> 7).ok()?,
                    ];
                } else if packed == 1 {
                    for t in &mut tf {
                        *t = self.small()?;
                    }
                } else {
                    return None;
                }
            }
            *p = Posting {
                slot: entry as u32,
                tf,
            };
            next = entry + 1;
        }
        Some(list)
    }
}

/// The cache text of `index`, for the memory directory `dir`.
pub(crate) fn encode(index: &RecallIndex, dir: &str) -> String {
    let ranker = index.ranker();
    // In walk order, the order the next instance's walk meets them: entry `k`.
    let mut entries: Vec<_> = index
        .cache_entries()
        .filter_map(|(header, size, embed_hash, order)| {
            let (slot, lens) = ranker.doc_slot(&header.filename)?;
            Some((header, size, embed_hash, order, slot, lens))
        })
        .collect();
    crate::sort::sort_by(&mut entries, |a, b| {
        a.3.cmp(&b.3).then_with(|| a.0.filename.cmp(&b.0.filename))
    });
    let lists = ranker.posting_lists();
    let slots = entries.iter().fold(0, |n, e| n.max(e.4 as usize + 1));
    let mut entry_of: Vec<u32> = vec![u32::MAX; slots];
    for (k, e) in entries.iter().enumerate() {
        if let Some(at) = entry_of.get_mut(e.4 as usize) {
            *at = k as u32;
        }
    }
    let entry_number = |p: &Posting| entry_of.get(p.slot as usize).copied().unwrap_or(u32::MAX);
    // The terms some entry uses, in text order: cache term `k` is the `k`-th (so the table is
    // strictly ascending, which the reader checks, and no two cache terms are one term).
    let mut terms: Vec<u32> = (0..lists.len() as u32)
        .filter(|&id| {
            lists
                .get(id as usize)
                .is_some_and(|l| l.iter().any(|p| entry_number(p) != u32::MAX))
        })
        .collect();
    crate::sort::sort_by(&mut terms, |&a, &b| {
        ranker
            .term_text(a)
            .unwrap_or_default()
            .cmp(ranker.term_text(b).unwrap_or_default())
    });
    let mut body = String::with_capacity(terms.len() * 8 + index.len() * 400 + 32);
    put_varint(&mut body, terms.len() as u64);
    for &id in &terms {
        put_str(&mut body, ranker.term_text(id).unwrap_or_default());
    }
    put_varint(&mut body, entries.len() as u64);
    for &(header, size, embed_hash, _, _, lens) in &entries {
        put_str(&mut body, &header.filename);
        put_varint(&mut body, size.to_bits().reverse_bits());
        put_varint(&mut body, header.mtime_ms.to_bits().reverse_bits());
        let kind = header
            .memory_type
            .and_then(|t| MemoryType::ALL.iter().position(|&a| a == t))
            .map_or(0, |t| t as u64 + 1);
        put_varint(&mut body, kind);
        for opt in [&header.name, &header.description] {
            match opt {
                Some(s) => {
                    put_varint(&mut body, s.len() as u64 + 1);
                    body.push_str(s);
                }
                None => put_varint(&mut body, 0),
            }
        }
        put_varint(&mut body, (embed_hash >> 64) as u64);
        put_varint(&mut body, embed_hash as u64);
        for l in lens {
            put_varint(&mut body, u64::from(l));
        }
        body.push('\n');
    }
    let mut list: Vec<(u32, [u16; FIELDS])> = Vec::new();
    for &id in &terms {
        list.clear();
        list.extend(
            lists
                .get(id as usize)
                .into_iter()
                .flatten()
                .map(|p| (entry_number(p), p.tf))
                .filter(|&(k, _)| k != u32::MAX),
        );
        crate::sort::sort_by(&mut list, |a, b| a.0.cmp(&b.0));
        // One posting per memory (the index never holds two; should it, the reader would refuse
        // the gap of zero).
        list.dedup_by_key(|p| p.0);
        put_varint(&mut body, list.len() as u64);
        // Ascending entry numbers as gaps; a term found once in the body only takes one number,
        // any other its counts after it: packed in one number (doubled) when those of the
        // filename, name and description are below 4, else `1` and the four.
        let mut next = 0u32;
        for &(k, tf) in &list {
            let plain = tf == [0, 0, 0, 1];
            put_varint(
                &mut body,
                u64::from(k.saturating_sub(next)) * 2 + u64::from(!plain),
            );
            match tf.map(u64::from) {
                _ if plain => {}
                // Counts below 4 outside the body (nearly all): one number.
                [a, b, c, d] if a < 4 && b < 4 && c < 4 => {
                    put_varint(&mut body, d << 7 | c << 5 | b << 3 | a << 1);
                }
                all => {
                    put_varint(&mut body, 1);
                    for t in all {
                        put_varint(&mut body, t);
                    }
                }
            }
            next = k + 1;
        }
    }
    format!(
        "{MAGIC} {:x} {:x} {:x} {}\n{body}",
        fingerprint(),
        fnv64(dir.as_bytes()),
        fnv64(body.as_bytes()),
        body.len()
    )
}

/// A string: its byte length, then its bytes.
fn put_str(out: &mut String, s: &str) {
    put_varint(out, s.len() as u64);
    out.push_str(s);
}

/// A number as base-32 digits, low first: `P`..`o` for a digit more follow, `0`..`O` for the
/// last (printable, one byte each).
fn put_varint(out: &mut String, mut v: u64) {
    while v >= 32 {
        out.push(char::from(0x50 + (v & 31) as u8));
        v >>= 5;
    }
    out.push(char::from(0x30 + v as u8));
}

/// The number of [`put_varint`] at `*pos` of `bytes`, moving past it.
#[inline(always)]
fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let digit = u64::from(bytes.get(*pos)?.wrapping_sub(0x30));
        *pos += 1;
        if digit < 32 {
            return Some(v | digit << shift);
        }
        if digit >= 64 || shift >= 60 {
            return None;
        }
        v |= (digit & 31) << shift;
        shift += 5;
    }
}

/// A hash of what this build of the library derives from a memory's text (its terms and
/// counts, field lengths, embedding text) for a probe memory exercising the tokeniser: a cache
/// written by a build that tokenises differently does not match. A constant of the build:
/// worked out once (it tokenises the probe, about half a millisecond), then remembered.
pub(crate) fn fingerprint() -> u64 {
    static PRINT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *PRINT.get_or_init(probe_fingerprint)
}

/// [`fingerprint`], worked out.
fn probe_fingerprint() -> u64 {
    let probe = MemoryHeader {
        filename: "team/Kafka_topicNames-v2.md".into(),
        file_path: String::new(),
        mtime_ms: 0.0,
        description: Some("HTTPServerError E0425 in parseJSONConfig; running tests quickly".into()),
        memory_type: Some(MemoryType::Feedback),
        name: Some("Deploying services: the naïve way (über-fast)".into()),
        body_head: "Why: the parsers' caches were flushed at 10:30.\n**How to apply:** \
                    `cargo test --lib` foo.bar_baz/qux.rs#L12 https://x.io/a?b=c 404s don't"
            .into(),
    };
    let mut ranker = RankerIndex::new(RankerParams::default());
    ranker.upsert((&probe).into());
    let mut text = super::semantic::embed_text(&probe);
    if let Some((_, lens)) = ranker.doc_slot(&probe.filename) {
        for l in lens {
            let _ = write!(text, " {l}");
        }
    }
    for counts in ranker.slot_counts() {
        let mut named: Vec<(&str, [u16; FIELDS])> = counts
            .iter()
            .map(|&(id, tf)| (ranker.term_text(id).unwrap_or_default(), tf))
            .collect();
        crate::sort::sort_by(&mut named, |a, b| a.0.cmp(b.0));
        for (term, tf) in named {
            let _ = write!(text, "\n{term}");
            for t in tf {
                let _ = write!(text, " {t}");
            }
        }
    }
    fnv64(text.as_bytes())
}

/// FNV-1a, 64-bit, over little-endian 8-byte words (the tail zero-padded) then the length: a
/// checksum eight times cheaper per byte than the byte-wise hash, for a file of megabytes.
fn fnv64(bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut at = 0;
    while let Some(word) = bytes
        .get(at..at + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
    {
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(PRIME);
        at += 8;
    }
    let mut tail = [0u8; 8];
    for (t, &b) in tail.iter_mut().zip(bytes.get(at..).unwrap_or_default()) {
        *t = b;
    }
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(PRIME);
    (h ^ bytes.len() as u64).wrapping_mul(PRIME)
}

fn parse_hex(s: &str) -> Option<u64> {
    parse_radix(s, 16)
}

/// A non-empty run of digits in `radix` that fits in 64 bits (one parser for every number of
/// the file, rather than one `from_str` per integer type).
fn parse_radix(s: &str, radix: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.chars().try_fold(0u64, |n, c| {
        n.checked_mul(u64::from(radix))?
            .checked_add(u64::from(c.to_digit(radix)?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    const WORDS: [&str; 24] = [
        "kafka",
        "topic",
        "deploy",
        "staging",
        "parseJSONConfig",
        "snake_case_name",
        "E0425",
        "naïve",
        "über",
        "running",
        "tests",
        "src/lib.rs",
        "v2.3",
        "HTTPServer",
        "grafana",
        "the",
        "a",
        "why",
        "apply",
        "tab\there",
        "line\nbreak",
        "back\\slash",
        "cr\rx",
        "💡",
    ];

    fn text(rng: &mut XorShift, n: usize) -> String {
        (0..n)
            .map(|_| WORDS[rng.next() as usize % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A listed file, as the walk owns it.
    struct File {
        rel: String,
        path: String,
        size: f64,
        mtime_ms: f64,
    }

    impl File {
        fn listed(&self) -> Listed<'_> {
            Listed {
                rel: &self.rel,
                size: self.size,
                mtime_ms: self.mtime_ms,
            }
        }
    }

    fn file(rel: &str, size: f64, mtime_ms: f64) -> File {
        File {
            rel: rel.into(),
            path: format!("/m/{rel}"),
            size,
            mtime_ms,
        }
    }

    /// [`IndexCache::apply_bulk`] of `files` (listed under `/m/`, each with its entry and walk
    /// position); a refused load must give every hit back as it was.
    fn apply(
        cache: &mut IndexCache<'_>,
        index: &mut RecallIndex,
        files: &[(Listed<'_>, usize, u32)],
    ) -> bool {
        let hits = || -> Vec<Hit> {
            files
                .iter()
                .map(|&(f, at, order)| Hit {
                    rel: f.rel.to_owned(),
                    path: format!("/m/{}", f.rel),
                    size: f.size,
                    mtime_ms: f.mtime_ms,
                    at,
                    order,
                })
                .collect()
        };
        match cache.apply_bulk(index, hits()) {
            Ok(()) => true,
            Err(mut back) => {
                back.sort_by_key(|h| h.order);
                let mut given = hits();
                given.sort_by_key(|h| h.order);
                assert_eq!(back, given, "a refused load gives the hits back");
                false
            }
        }
    }

    /// A cache file for `/m/` around `body`: a header line that checks out.
    fn with_header(body: &str) -> String {
        format!(
            "{MAGIC} {:x} {:x} {:x} {}\n{body}",
            fingerprint(),
            fnv64(b"/m/"),
            fnv64(body.as_bytes()),
            body.len()
        )
    }

    /// `n` random memories: (file, header with its body).
    fn memories(seed: u64, n: usize) -> Vec<(File, MemoryHeader)> {
        let mut rng = XorShift(seed);
        (0..n)
            .map(|i| {
                let rel = match i % 3 {
                    0 => format!("note_{i}.md"),
                    1 => format!("team/Sub Dir/{}_{i}.md", text(&mut rng, 1)),
                    _ => format!("x\t{i}.md"),
                };
                let f = file(&rel, (rng.next() % 4096) as f64, 1.7e12 + i as f64 * 0.5);
                let h = MemoryHeader {
                    filename: f.rel.clone(),
                    file_path: f.path.clone(),
                    mtime_ms: f.mtime_ms,
                    description: match i % 4 {
                        0 => None,
                        // Counts past what one packed number holds.
                        1 if i % 7 == 1 => Some("deploy deploy deploy deploy staging".into()),
                        _ => Some(text(&mut rng, 8)),
                    },
                    memory_type: MemoryType::ALL.get(i % 5).copied(),
                    name: match i % 3 {
                        0 => None,
                        1 => Some(String::new()),
                        _ => Some(text(&mut rng, 3)),
                    },
                    body_head: {
                        let n = (rng.next() % 60) as usize;
                        text(&mut rng, n)
                    },
                };
                (f, h)
            })
            .collect()
    }

    fn fresh(mems: &[(File, MemoryHeader)]) -> RecallIndex {
        let mut index = RecallIndex::new(RankerParams::default());
        for (order, (f, h)) in mems.iter().enumerate() {
            index.upsert(h.clone(), f.size, order as u32);
        }
        index
    }

    /// Load from `cache` into the new `index` every file of `walk` (each with its walk
    /// position) the cache holds, in one bulk load as a first pass does; the walk positions of
    /// those it does not hold.
    fn load(
        cache: &mut IndexCache<'_>,
        index: &mut RecallIndex,
        walk: &[(&File, u32)],
    ) -> Vec<u32> {
        let mut hits = Vec::new();
        let mut missed = Vec::new();
        for &(f, order) in walk {
            match cache.position(f.listed()) {
                Some(at) => hits.push((f.listed(), at, order)),
                None => missed.push(order),
            }
        }
        assert!(hits.is_empty() || apply(cache, index, &hits));
        missed
    }

    /// Every one of `mems` as a bulk load takes it: listed at its place, found in `cache`.
    fn every_hit<'f>(
        cache: &IndexCache<'_>,
        mems: &'f [(File, MemoryHeader)],
    ) -> Vec<(Listed<'f>, usize, u32)> {
        mems.iter()
            .zip(0..)
            .map(|((f, _), i)| (f.listed(), cache.position(f.listed()).unwrap(), i))
            .collect()
    }

    /// Everything recall reads from an index for `query`, comparable exactly.
    fn answers(index: &mut RecallIndex, query: &str) -> Vec<String> {
        let mut out: Vec<String> = index
            .scored(query, &[])
            .into_iter()
            .map(|m| {
                format!(
                    "{:?} {} {} {}",
                    m.header,
                    m.size,
                    m.lexical.to_bits(),
                    m.embed_hash
                )
            })
            .collect();
        out.extend(index.rank(query, 10, &[]).into_iter().map(|h| h.filename));
        out
    }

    const QUERIES: [&str; 6] = [
        "kafka topic naming",
        "how do I deploy to staging? parse_json_config failed with E0425",
        "naive uber tests",
        "grafana",
        "kafak stagng",
        "💡 tab here",
    ];

    #[test]
    fn a_cached_index_equals_a_rebuild() {
        let mems = memories(0x9e37_79b9_7f4a_7c15, 120);
        let mut built = fresh(&mems);
        let text = encode(&built, "/m/");
        let mut cache = IndexCache::decode(text.as_bytes(), "/m/").expect("own cache decodes");
        assert_eq!(cache.len(), 120);
        let mut loaded = RecallIndex::new(RankerParams::default());
        let walk: Vec<(&File, u32)> = mems.iter().zip(0..).map(|((f, _), o)| (f, o)).collect();
        assert_eq!(
            load(&mut cache, &mut loaded, &walk),
            [0u32; 0],
            "every file held"
        );
        assert_eq!(loaded.edits(), 0, "nothing was read");
        for q in QUERIES {
            assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
        }
        // Re-encoding the loaded index gives the same file.
        assert_eq!(encode(&loaded, "/m/"), text);
    }

    #[test]
    fn a_bulk_load_equals_a_rebuild_and_edits_after_it_too() {
        let mems = memories(0x2545_f491_4f6c_dd1d, 150);
        let mut built = fresh(&mems);
        let text = encode(&built, "/m/");
        // Every file, in the written order and in another one (every third first, reversed).
        let mut other: Vec<usize> = (0..mems.len()).rev().collect();
        other.sort_by_key(|i| i % 3 != 0);
        for walk in [(0..mems.len()).collect::<Vec<_>>(), other] {
            let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
            let mut loaded = RecallIndex::new(RankerParams::default());
            let hits: Vec<(Listed<'_>, usize, u32)> = walk
                .iter()
                .map(|&i| {
                    let f = mems[i].0.listed();
                    (f, cache.position(f).expect("held"), i as u32)
                })
                .collect();
            assert!(apply(&mut cache, &mut loaded, &hits));
            assert_eq!((loaded.len(), loaded.edits()), (mems.len(), 0));
            for q in QUERIES {
                assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
            }
            assert_eq!(encode(&loaded, "/m/"), text);
            // Each entry is used once: a second load takes nothing, nor does a look-up find it.
            assert!(!apply(&mut cache, &mut loaded, &hits[..1]));
            assert!(cache.position(mems[0].0.listed()).is_none());
        }
        // Part of the files from the cache, the rest read; then removals and new versions: the
        // same answers as the index that read everything and did the same.
        let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
        let mut loaded = RecallIndex::new(RankerParams::default());
        let hits: Vec<(Listed<'_>, usize, u32)> = mems
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 5 != 2)
            .map(|(i, (f, _))| (f.listed(), cache.position(f.listed()).unwrap(), i as u32))
            .collect();
        assert!(apply(&mut cache, &mut loaded, &hits));
        for (i, (f, h)) in mems.iter().enumerate().filter(|(i, _)| i % 5 == 2) {
            loaded.upsert(h.clone(), f.size, i as u32);
        }
        for q in QUERIES {
            assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
        }
        let mut edited = memories(0x0bad_5eed, 20);
        for (i, (f, h)) in edited.iter_mut().enumerate() {
            // New versions of some files, under their names.
            f.rel = mems[i * 7].0.rel.clone();
            h.filename = f.rel.clone();
        }
        for index in [&mut loaded, &mut built] {
            for (f, _) in mems.iter().skip(3).step_by(11) {
                index.remove(&f.rel);
            }
            for (i, (f, h)) in edited.iter().enumerate() {
                index.upsert(h.clone(), f.size, i as u32);
            }
        }
        assert_eq!(loaded.len(), built.len());
        for q in QUERIES {
            assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
        }
    }

    #[test]
    fn a_bulk_load_needs_a_new_index_and_unused_entries() {
        let mems = memories(5, 12);
        let text = encode(&fresh(&mems), "/m/");
        let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
        let hits = every_hit(&cache, &mems);
        // An index that held a memory (even one since removed) is not new.
        let mut used = RecallIndex::new(RankerParams::default());
        used.upsert(mems[0].1.clone(), 1.0, 0);
        used.remove(&mems[0].0.rel);
        assert!(!apply(&mut cache, &mut used, &hits));
        // A position that is not this file's entry, or one entry twice: refused whole.
        let mut index = RecallIndex::new(RankerParams::default());
        let mut wrong = hits.clone();
        wrong[1].1 = wrong[2].1;
        assert!(!apply(&mut cache, &mut index, &wrong));
        let mut twice = hits.clone();
        twice.push(hits[0]);
        assert!(!apply(&mut cache, &mut index, &twice));
        assert!(index.is_new());
        assert!(apply(&mut cache, &mut index, &hits));
        assert_eq!(index.len(), mems.len());
        // Two entries for one path (a hand-made file), each a hit: the ranker refuses the
        // second filename after the hits were consumed, and they come back whole.
        let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
        cache.entries[1].rel = cache.entries[0].rel;
        let same = [hits[0], (hits[0].0, 1, 1)];
        let mut index = RecallIndex::new(RankerParams::default());
        assert!(!apply(&mut cache, &mut index, &same));
        assert!(index.is_empty());
    }

    #[test]
    fn a_bulk_load_refuses_cache_terms_the_ranker_keys_alike() {
        let mems = memories(17, 20);
        let text = encode(&fresh(&mems), "/m/");
        let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
        // Packed short terms are right-aligned: `\0ab` is keyed as `ab` (a hand-made file that
        // passed the checksum could hold both).
        cache.terms[0] = "ab";
        cache.terms[1] = "\0ab";
        let hits = every_hit(&cache, &mems);
        let mut index = RecallIndex::new(RankerParams::default());
        assert!(!apply(&mut cache, &mut index, &hits));
        assert!(!apply(&mut cache, &mut index, &hits), "nor on a second try");
        assert!(index.is_empty());
    }

    #[test]
    fn a_walk_in_another_order_takes_every_entry() {
        let mems = memories(0x51ed_270b_6a3c_ff01, 60);
        let mut built = fresh(&mems);
        let text = encode(&built, "/m/");
        let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
        let mut loaded = RecallIndex::new(RankerParams::default());
        // Reversed, with every third file first: the written order is met almost never.
        let mut walk: Vec<usize> = (0..mems.len()).rev().collect();
        walk.sort_by_key(|i| i % 3 != 0);
        let walk: Vec<(&File, u32)> = walk.iter().map(|&i| (&mems[i].0, i as u32)).collect();
        assert_eq!(
            load(&mut cache, &mut loaded, &walk),
            [0u32; 0],
            "every file held"
        );
        assert_eq!(loaded.edits(), 0);
        for q in QUERIES {
            assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
        }
        // Applied out of walk order, yet each memory kept its walk position: same file.
        assert_eq!(encode(&loaded, "/m/"), text);
    }

    #[test]
    fn only_matching_keys_are_taken() {
        let mems = memories(7, 30);
        let text = encode(&fresh(&mems), "/m/");
        let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
        let mut index = RecallIndex::new(RankerParams::default());
        let (f, _) = &mems[3];
        let other_size = file(&f.rel, f.size + 1.0, f.mtime_ms);
        let other_mtime = file(&f.rel, f.size, f.mtime_ms + 1.0);
        let absent = file("absent.md", f.size, f.mtime_ms);
        let walk = [(&other_size, 0), (&other_mtime, 1), (&absent, 2), (f, 3)];
        assert_eq!(load(&mut cache, &mut index, &walk), [0, 1, 2]);
        assert_eq!(index.len(), 1);
        // The cache held files that changed or are gone: due for a rewrite, even with nothing
        // read.
        assert_eq!(index.edits(), 1);
        assert!(
            cache.position(f.listed()).is_none(),
            "an entry is used once"
        );
        // Another directory, another version, another tokeniser: ignored whole.
        assert!(IndexCache::decode(text.as_bytes(), "/other/").is_none());
        let old = text.replacen("memdir-index 3 ", "memdir-index 2 ", 1);
        assert!(IndexCache::decode(old.as_bytes(), "/m/").is_none());
        let print = format!("{:x}", fingerprint());
        let other = text.replacen(&print, &format!("{:x}", fingerprint() ^ 1), 1);
        assert!(IndexCache::decode(other.as_bytes(), "/m/").is_none());
    }

    #[test]
    fn hostile_bytes_are_rejected_or_equal_a_rebuild() {
        let mems = memories(11, 40);
        let mut built = fresh(&mems);
        let good = encode(&built, "/m/");
        let mut rng = XorShift(0xdead_beef_cafe_f00d);
        let mut taken = 0;
        for round in 0..3000u32 {
            let candidate: String = match round % 4 {
                // Random bytes.
                0 => {
                    let n = (rng.next() % 400) as usize;
                    let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                // Truncated (a torn write).
                1 => {
                    let mut cut = (rng.next() as usize) % good.len();
                    while !good.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    good[..cut].to_owned()
                }
                // A few bytes altered.
                2 => {
                    let mut bytes = good.clone().into_bytes();
                    for _ in 0..1 + rng.next() % 3 {
                        let at = (rng.next() as usize) % bytes.len();
                        bytes[at] = rng.next() as u8;
                    }
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                // A well-formed header over a random run of numbers and strings (huge
                // counts included).
                _ => {
                    let mut body = String::new();
                    for _ in 0..rng.next() % 40 {
                        match rng.next() % 3 {
                            0 => put_varint(&mut body, rng.next() % 8),
                            1 => put_varint(&mut body, rng.next() >> (rng.next() % 64)),
                            _ => put_str(&mut body, &text(&mut rng, 2)),
                        }
                        if rng.next() % 8 == 0 {
                            body.push('\n');
                        }
                    }
                    with_header(&body)
                }
            };
            let Some(mut cache) = IndexCache::decode(candidate.as_bytes(), "/m/") else {
                continue;
            };
            // Accepted: then it is the cache itself (a change that still checks out).
            taken += 1;
            let mut loaded = RecallIndex::new(RankerParams::default());
            let walk: Vec<(&File, u32)> = mems.iter().zip(0..).map(|((f, _), o)| (f, o)).collect();
            for order in load(&mut cache, &mut loaded, &walk) {
                let (f, h) = &mems[order as usize];
                loaded.upsert(h.clone(), f.size, order);
            }
            for q in QUERIES {
                assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
            }
        }
        assert!(taken < 3000);
    }

    #[test]
    fn a_decoding_in_slices_is_the_decoding_at_once() {
        let mems = memories(0x7f4a_7c15_9e37_79b9, 90);
        let good = encode(&fresh(&mems), "/m/");
        let mut rng = XorShift(0x1234_5678_9abc_def1);
        let mut candidates = vec![good.clone()];
        // Well-formed headers over bodies cut short or with a byte changed (the checksum made
        // to match): each fails somewhere in the body, in a different phase.
        let body = &good[good.find('\n').unwrap() + 1..];
        for _ in 0..200 {
            let mut bytes = body.as_bytes().to_vec();
            if rng.next() % 2 == 0 {
                bytes.truncate((rng.next() as usize) % bytes.len());
            } else {
                let at = (rng.next() as usize) % bytes.len();
                bytes[at] = b'0' + (rng.next() % 75) as u8;
            }
            let b = String::from_utf8_lossy(&bytes).into_owned();
            candidates.push(with_header(&b));
        }
        let mut decoded = 0;
        for text in &candidates {
            let whole = IndexCache::decode(text.as_bytes(), "/m/");
            decoded += usize::from(whole.is_some());
            for budget in [1, 3, 40, 700, 1 << 40] {
                let Some(mut d) = Decoding::start(text.as_bytes(), "/m/") else {
                    assert!(whole.is_none());
                    continue;
                };
                let mut steps = 0;
                while d.step(budget) {
                    steps += 1;
                }
                assert!(budget > 1000 || whole.is_none() || steps > 3);
                assert_eq!(d.finish(), whole, "budget {budget}");
            }
        }
        assert!(decoded > 1 && decoded < candidates.len(), "{decoded}");
    }

    #[test]
    fn terms_interned_while_decoding_load_as_at_once() {
        let mems = memories(0x0123_4567_89ab_cdef, 70);
        let mut built = fresh(&mems);
        let text = encode(&built, "/m/");
        let mut rng = XorShift(99);
        for round in 0..12 {
            let mut index = RecallIndex::new(RankerParams::default());
            let mut d = Decoding::start(text.as_bytes(), "/m/").unwrap();
            let n = 1 + (rng.next() % 300) as usize;
            loop {
                let more = d.step(1 + (rng.next() % 900) as usize);
                if round % 3 != 0 {
                    d.intern_step(&mut index, n);
                }
                if !more {
                    break;
                }
            }
            let mut cache = d.finish().unwrap();
            let hits = every_hit(&cache, &mems);
            assert!(apply(&mut cache, &mut index, &hits));
            for q in QUERIES {
                assert_eq!(answers(&mut index, q), answers(&mut built, q), "{q}");
            }
            assert_eq!(encode(&index, "/m/"), text);
        }
        // Two terms the ranker keys alike (put in by hand: a decoded file holds none): the
        // interning stops at the second, and the load is refused.
        let mut d = Decoding::start(text.as_bytes(), "/m/").unwrap();
        while d.phase != Phase::Entries(mems.len()) {
            d.step(1);
        }
        d.terms[0] = "ab";
        d.terms[1] = "\0ab";
        let mut index = RecallIndex::new(RankerParams::default());
        d.intern_step(&mut index, 1);
        d.intern_step(&mut index, 5);
        d.intern_step(&mut index, 5);
        assert_eq!(d.ids.len(), 1);
        let mut cache = d.finish().unwrap();
        let hits = every_hit(&cache, &mems);
        assert!(!apply(&mut cache, &mut index, &hits));
        assert!(index.is_empty());
    }

    #[test]
    fn lists_longer_than_the_entries_and_nul_terms_are_refused() {
        // A body with one term and one entry, its list as given.
        let cache = |term: &str, list: &[u64]| {
            let mut body = String::new();
            put_varint(&mut body, 1);
            put_str(&mut body, term);
            put_varint(&mut body, 1);
            put_str(&mut body, "a.md");
            // Size, mtime, type, name, description, embedding hash (two), field lengths.
            for n in [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] {
                put_varint(&mut body, n);
            }
            body.push('\n');
            for &n in list {
                put_varint(&mut body, n);
            }
            with_header(&body)
        };
        // One posting (entry 0, once in the body): taken.
        assert!(IndexCache::decode(cache("kafka", &[1, 0]).as_bytes(), "/m/").is_some());
        // A count past the one entry, with bytes enough behind it.
        let long = cache("kafka", &[5, 0, 0, 0, 0, 0, 0]);
        assert!(IndexCache::decode(long.as_bytes(), "/m/").is_none());
        // A term the tokeniser never makes, keyed by the ranker like `ab`.
        assert!(IndexCache::decode(cache("\0ab", &[1, 0]).as_bytes(), "/m/").is_none());
    }

    #[test]
    fn a_rewrite_is_due_when_changed_and_not_too_often() {
        let never = CacheMark::default();
        assert!(!never.due(0, 0.0));
        assert!(never.due(1, 0.0));
        let saved = CacheMark {
            tried: true,
            saved_edits: 10,
            saved_at_ms: Some(1000.0),
        };
        assert!(!saved.due(10, 1e9));
        assert!(!saved.due(11, 2000.0));
        assert!(saved.due(11, 1000.0 + SAVE_EVERY_MS));
        assert!(saved.due(10 + SAVE_EVERY_EDITS, 2000.0));
        assert!(saved.due(11, 0.0), "the clock went back");
    }

    #[test]
    fn a_partial_load_then_passes_of_edits_write_the_cache_a_rebuild_writes() {
        for seed in [1u64, 2, 3, 4] {
            let mems = memories(seed * 0x9e37_79b9, 80);
            let text = encode(&fresh(&mems), "/m/");
            let mut cache = IndexCache::decode(text.as_bytes(), "/m/").unwrap();
            // A new instance: files 60.. gone (free slots at the end), every seventh changed
            // (read, into a free slot), the rest taken from the cache.
            let mut now: Vec<(File, MemoryHeader)> = Vec::new();
            let other = memories(seed ^ 0xabcdef, 80);
            for (i, (f, h)) in mems.iter().enumerate().take(60) {
                if i % 7 == 3 {
                    let mut changed = other[i].1.clone();
                    changed.filename = h.filename.clone();
                    changed.file_path = h.file_path.clone();
                    changed.mtime_ms = f.mtime_ms + 1.0;
                    now.push((file(&f.rel, f.size, f.mtime_ms + 1.0), changed));
                } else {
                    now.push((file(&f.rel, f.size, f.mtime_ms), h.clone()));
                }
            }
            let mut loaded = RecallIndex::new(RankerParams::default());
            let walk: Vec<(&File, u32)> = now.iter().zip(0..).map(|((f, _), o)| (f, o)).collect();
            let missed = load(&mut cache, &mut loaded, &walk);
            assert!(!missed.is_empty());
            for order in missed {
                let (f, h) = &now[order as usize];
                loaded.upsert(h.clone(), f.size, order);
            }
            let mut built = fresh(&now);
            assert_eq!(encode(&loaded, "/m/"), encode(&built, "/m/"));
            // Later passes, on both: new files (the free slots, then new ones), a loaded memory
            // removed (its term list made then) and indexed again, removals, a sweep.
            let extra = memories(seed ^ 0x1111, 30);
            for index in [&mut loaded, &mut built] {
                for (i, (f, h)) in extra.iter().enumerate().take(10) {
                    let mut h = h.clone();
                    h.filename = format!("new_{i}.md");
                    index.upsert(h, f.size, 100 + i as u32);
                }
                index.remove(&now[0].0.rel);
                index.upsert(now[0].1.clone(), now[0].0.size, 0);
                for (f, _) in now.iter().skip(1).step_by(5) {
                    index.remove(&f.rel);
                }
                for (i, (f, h)) in extra.iter().enumerate().skip(10) {
                    let mut h = h.clone();
                    h.filename = format!("new_{i}.md");
                    index.upsert(h, f.size, 100 + i as u32);
                }
                index.begin_pass();
                for (i, (f, h)) in now.iter().enumerate().filter(|(i, _)| i % 3 != 0) {
                    index.listed(&f.rel, f.size, h.mtime_ms, i as u32);
                }
                index.sweep();
            }
            assert_eq!(loaded.len(), built.len());
            assert_eq!(encode(&loaded, "/m/"), encode(&built, "/m/"));
            for q in QUERIES {
                assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
            }
            // Everything removed: no posting is left behind.
            let names: Vec<String> = loaded
                .cache_entries()
                .map(|(h, ..)| h.filename.clone())
                .collect();
            for n in names {
                assert!(loaded.remove(&n));
            }
            assert!(loaded.ranker().posting_lists().iter().all(Vec::is_empty));
        }
    }
}
