//! The built-in lexical ranker (design §6): BM25F over a memory's filename, `name`,
//! `description`, `type` and the head of its body.
//!
//! It answers recall when no LLM is configured or the LLM fails, and pre-filters a directory
//! larger than the selector budget. Because it may answer alone, it is built to be selective:
//! a query that shares no meaningful word with a memory's filename, name or description gets
//! nothing, and weak matches are dropped (see [`RankerParams`]).
//!
//! Build a [`RankerIndex`] once and query it many times; [`rank_memories`] does both at once.

use super::tokenize::{for_each_term, packed};
use crate::types::MemoryHeader;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small, fast, non-cryptographic hasher (the multiply-rotate scheme of rustc's `FxHasher`)
/// for the term dictionary: its keys are words from the caller's own memories, and SipHash's
/// protection against chosen collisions costs more than the rest of indexing.
#[derive(Clone, Copy, Debug, Default)]
struct WordHasher {
    hash: u64,
}

impl WordHasher {
    #[inline(always)]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for chunk in &mut words {
            self.add(<[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes));
        }
        let mut tail = [0u8; 8];
        let rest = words.remainder();
        if !rest.is_empty() {
            for (slot, &b) in tail.iter_mut().zip(rest) {
                *slot = b;
            }
            self.add(u64::from_le_bytes(tail) ^ rest.len() as u64);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // The product's high bits depend on every input bit; the table indexes by the low ones.
        self.hash.rotate_left(26)
    }
}

type WordMap<K> = HashMap<K, u32, BuildHasherDefault<WordHasher>>;

/// Term → id. Most words fit in 8 bytes: those are keyed by their packed value (an integer
/// hash and compare), the rest by their text.
#[derive(Clone, Debug, Default)]
struct TermIds {
    short: WordMap<u64>,
    long: WordMap<Box<str>>,
}

impl TermIds {
    fn get(&self, term: &str) -> Option<u32> {
        match packed(term) {
            Some(key) => self.short.get(&key),
            None => self.long.get(term),
        }
        .copied()
    }

    fn insert(&mut self, term: &str, id: u32) {
        match packed(term) {
            Some(key) => self.short.insert(key, id),
            None => self.long.insert(term.into(), id),
        };
    }
}

/// Weights and thresholds of the ranker.
///
/// The score of a memory for a query is BM25F: for each query term, the field-weighted,
/// length-normalised term frequency is saturated with `k1` and multiplied by the term's inverse
/// document frequency. The *normalised* score divides that by the best score a memory could get
/// for the same terms, so it lies in `[0, 1)` whatever the directory's size.
#[derive(Clone, Debug, PartialEq)]
pub struct RankerParams {
    /// Weight of the filename's words (split on `_`, `-`, `.`, `/`).
    pub filename_weight: f32,
    /// Weight of the `name` field.
    pub name_weight: f32,
    /// Weight of the `description` field.
    pub description_weight: f32,
    /// Weight of the `type` field.
    pub type_weight: f32,
    /// Weight of the body head.
    pub body_weight: f32,
    /// BM25 term-frequency saturation.
    pub k1: f32,
    /// BM25 length normalisation (0 = none, 1 = full), applied per field.
    pub b: f32,
    /// How much a query word that no memory contains counts against every memory's normalised
    /// score (1 = fully, as if some memory could have matched it; 0 = not at all). Natural
    /// queries carry many such words ("add", "column", "please"), so this is below 1.
    pub unknown_term_weight: f32,
    /// A memory needs at least this normalised score to be returned on its own.
    pub min_score: f32,
    /// … and at least this fraction of the best memory's score.
    pub min_relative: f32,
}

impl Default for RankerParams {
    fn default() -> Self {
        RankerParams {
            filename_weight: 2.0,
            name_weight: 3.0,
            description_weight: 2.0,
            type_weight: 0.5,
            body_weight: 0.6,
            k1: 1.2,
            b: 0.5,
            unknown_term_weight: 0.5,
            min_score: 0.3,
            min_relative: 0.5,
        }
    }
}

/// One memory the ranker chose.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedMemory {
    /// The memory's filename (relative to the memory directory).
    pub filename: String,
    /// Its normalised score, in `[0, 1)`.
    pub score: f32,
}

const FIELDS: usize = 5;
const FILENAME: usize = 0;
const NAME: usize = 1;
const DESCRIPTION: usize = 2;

/// One memory's entry in a term's posting list.
#[derive(Clone, Copy, Debug)]
struct Posting {
    doc: u32,
    /// Field-weighted, length-normalised term frequency (BM25F pseudo-frequency).
    weight: f32,
    /// The term occurs in the filename, name or description (not only the body or type).
    strong: bool,
}

/// An inverted index over memory headers, reusable across queries.
///
/// ```
/// use memdir::recall::RankerIndex;
/// use memdir::MemoryHeader;
/// let header = |f: &str, d: &str| MemoryHeader {
///     filename: f.into(), file_path: format!("/m/{f}"), mtime_ms: 0.0,
///     description: Some(d.into()), memory_type: None, name: None, body_head: String::new(),
/// };
/// let index = RankerIndex::build(&[
///     header("deploy_checklist.md", "Steps to deploy the API to staging"),
///     header("user_role.md", "Senior Go developer, new to React"),
/// ]);
/// let hits = index.rank("how do we deploy to staging?", 5);
/// assert_eq!(hits[0].filename, "deploy_checklist.md");
/// assert!(index.rank("what's the weather in Paris", 5).is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct RankerIndex {
    params: RankerParams,
    filenames: Vec<String>,
    terms: TermIds,
    postings: Vec<Vec<Posting>>,
}

impl RankerIndex {
    /// Index `headers` with the default [`RankerParams`].
    pub fn build(headers: &[MemoryHeader]) -> Self {
        RankerIndex::build_with(headers, RankerParams::default())
    }

    /// Index `headers` with the given parameters.
    pub fn build_with(headers: &[MemoryHeader], params: RankerParams) -> Self {
        let mut terms = TermIds::default();
        // Per term id: 1 + the last document it occurred in (0: none yet), and where that
        // document's counts for it are in `counts`.
        let mut last_doc: Vec<u32> = Vec::new();
        let mut slot_of: Vec<usize> = Vec::new();
        // Per document (in order, from `doc_starts`): each distinct term once, with its count
        // in every field, in order of first occurrence.
        let mut counts: Vec<(u32, [u32; FIELDS])> = Vec::new();
        let mut doc_starts: Vec<usize> = Vec::with_capacity(headers.len() + 1);
        let mut lengths: Vec<[u32; FIELDS]> = Vec::with_capacity(headers.len());
        let mut totals = [0f64; FIELDS];
        for (doc, header) in headers.iter().enumerate() {
            let doc_mark = doc as u32 + 1;
            doc_starts.push(counts.len());
            let mut len = [0u32; FIELDS];
            let type_text = header.memory_type.map(|t| t.as_str()).unwrap_or_default();
            let texts: [&str; FIELDS] = [
                &header.filename,
                header.name.as_deref().unwrap_or_default(),
                header.description.as_deref().unwrap_or_default(),
                type_text,
                &header.body_head,
            ];
            for (field, text) in texts.iter().enumerate() {
                for_each_term(text, |term| {
                    let id = match terms.get(term) {
                        Some(id) => id as usize,
                        None => {
                            let id = last_doc.len();
                            terms.insert(term, id as u32);
                            last_doc.push(0);
                            slot_of.push(0);
                            id
                        }
                    };
                    if let (Some(last), Some(slot)) = (last_doc.get_mut(id), slot_of.get_mut(id)) {
                        if *last != doc_mark {
                            *last = doc_mark;
                            *slot = counts.len();
                            counts.push((id as u32, [0; FIELDS]));
                        }
                        if let Some(n) = counts.get_mut(*slot).and_then(|c| c.1.get_mut(field)) {
                            *n += 1;
                        }
                    }
                    if let Some(l) = len.get_mut(field) {
                        *l += 1;
                    }
                });
            }
            for (total, l) in totals.iter_mut().zip(len) {
                *total += f64::from(l);
            }
            lengths.push(len);
        }
        doc_starts.push(counts.len());
        let n = headers.len().max(1) as f64;
        let avg: Vec<f32> = totals.iter().map(|t| (t / n).max(1.0) as f32).collect();
        let weights = [
            params.filename_weight,
            params.name_weight,
            params.description_weight,
            params.type_weight,
            params.body_weight,
        ];
        let mut postings: Vec<Vec<Posting>> = vec![Vec::new(); last_doc.len()];
        for (doc, (bounds, len)) in doc_starts.windows(2).zip(&lengths).enumerate() {
            let doc_counts = match *bounds {
                [start, end] => counts.get(start..end).unwrap_or_default(),
                _ => &[],
            };
            for &(term, tf) in doc_counts {
                let tf = tf.map(|count| count as f32);
                let mut weight = 0f32;
                for f in 0..FIELDS {
                    if tf[f] > 0.0 {
                        let norm = 1.0 - params.b + params.b * len[f] as f32 / avg[f];
                        weight += weights[f] * tf[f] / norm;
                    }
                }
                let strong = tf[FILENAME] + tf[NAME] + tf[DESCRIPTION] > 0.0;
                if let Some(list) = postings.get_mut(term as usize) {
                    list.push(Posting {
                        doc: doc as u32,
                        weight,
                        strong,
                    });
                }
            }
        }
        RankerIndex {
            params,
            filenames: headers.iter().map(|h| h.filename.clone()).collect(),
            terms,
            postings,
        }
    }

    /// How many memories the index holds.
    pub fn len(&self) -> usize {
        self.filenames.len()
    }

    /// True when the index holds no memory.
    pub fn is_empty(&self) -> bool {
        self.filenames.is_empty()
    }

    /// The query's distinct terms, each with its posting list (None if no memory has it) and
    /// its inverse document frequency.
    fn query_terms(&self, query: &str) -> Vec<(Option<&[Posting]>, f32)> {
        let mut seen: Vec<String> = Vec::new();
        for_each_term(query, |t| {
            if !seen.iter().any(|s| s == t) {
                seen.push(t.to_owned());
            }
        });
        let n = self.filenames.len() as f32;
        seen.iter()
            .map(|t| {
                let list = self
                    .terms
                    .get(t)
                    .and_then(|id| self.postings.get(id as usize))
                    .map(Vec::as_slice);
                // A word no memory has is priced as if exactly one memory had it.
                let df = list.map_or(1, <[Posting]>::len) as f32;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                (list, idf)
            })
            .collect()
    }

    /// Normalised scores of every memory, and whether each matched a term strongly.
    fn scores(&self, query: &str) -> (Vec<f32>, Vec<bool>) {
        let k1 = self.params.k1;
        let mut scores = vec![0f32; self.filenames.len()];
        let mut strong = vec![false; self.filenames.len()];
        let query_terms = self.query_terms(query);
        let unknown = self.params.unknown_term_weight;
        let best: f32 = query_terms
            .iter()
            .map(|(list, idf)| idf * (k1 + 1.0) * if list.is_some() { 1.0 } else { unknown })
            .sum();
        if best <= 0.0 {
            return (scores, strong);
        }
        for (list, idf) in &query_terms {
            for p in list.unwrap_or_default() {
                let i = p.doc as usize;
                if let (Some(score), Some(flag)) = (scores.get_mut(i), strong.get_mut(i)) {
                    *score += idf * p.weight * (k1 + 1.0) / (p.weight + k1) / best;
                    *flag |= p.strong;
                }
            }
        }
        (scores, strong)
    }

    /// The memories relevant to `query`, best first, at most `limit`. Only memories with a
    /// strong match (a query word in the filename, name or description), a normalised score of at
    /// least [`RankerParams::min_score`] and at least [`RankerParams::min_relative`] of the best
    /// score are returned; ties keep index order (a scan's newest-first order).
    pub fn rank(&self, query: &str, limit: usize) -> Vec<RankedMemory> {
        let (scores, strong) = self.scores(query);
        let mut hits: Vec<(usize, f32)> = scores
            .iter()
            .zip(&strong)
            .enumerate()
            .filter(|(_, (&s, &st))| st && s >= self.params.min_score)
            .map(|(i, (&s, _))| (i, s))
            .collect();
        sort_best_first(&mut hits);
        let top = hits.first().map_or(0.0, |h| h.1);
        hits.into_iter()
            .take_while(|h| h.1 >= top * self.params.min_relative)
            .take(limit)
            .filter_map(|(i, score)| {
                self.filenames.get(i).map(|f| RankedMemory {
                    filename: f.clone(),
                    score,
                })
            })
            .collect()
    }

    /// Positions (into the indexed headers) of the `budget` memories most worth showing an LLM
    /// for `query`: every memory that matches anything, best first, then the rest in index
    /// order. No threshold: this narrows a large directory, it does not decide relevance.
    pub fn prefilter(&self, query: &str, budget: usize) -> Vec<usize> {
        let (scores, _) = self.scores(query);
        let mut order: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect();
        sort_best_first(&mut order);
        order.truncate(budget);
        order.into_iter().map(|(i, _)| i).collect()
    }
}

/// Sort `(position, score)` pairs by score, highest first, then by position (the order is total:
/// positions are distinct).
fn sort_best_first(items: &mut [(usize, f32)]) {
    fn best_first(a: &(usize, f32), b: &(usize, f32)) -> std::cmp::Ordering {
        b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
    }
    crate::sort::sort_by(items, best_first);
}

/// Build an index over `headers` and rank them for `query` (see [`RankerIndex::rank`]).
///
/// ```
/// use memdir::recall::rank_memories;
/// assert!(rank_memories("anything at all", &[], 5).is_empty());
/// ```
pub fn rank_memories(query: &str, headers: &[MemoryHeader], limit: usize) -> Vec<RankedMemory> {
    RankerIndex::build(headers).rank(query, limit)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::types::MemoryType;

    fn header(filename: &str, name: &str, description: &str, body: &str) -> MemoryHeader {
        MemoryHeader {
            filename: filename.into(),
            file_path: format!("/m/{filename}"),
            mtime_ms: 0.0,
            description: Some(description.into()),
            memory_type: Some(MemoryType::Project),
            name: Some(name.into()),
            body_head: body.into(),
        }
    }

    fn corpus() -> Vec<MemoryHeader> {
        vec![
            header(
                "ci_flaky_tests.md",
                "Flaky CI tests",
                "Integration tests time out on CI when the cache is cold",
                "Re-run with a warm cache.",
            ),
            header(
                "user_role.md",
                "User role",
                "Senior Go developer new to the React frontend",
                "",
            ),
            header(
                "release_process.md",
                "Release process",
                "How releases are cut and tagged",
                "Tag from main after the freeze.",
            ),
            header(
                "db_migrations.md",
                "Database migrations",
                "Run migrations with the migrate tool, never by hand",
                "Postgres 15.",
            ),
        ]
    }

    #[test]
    fn finds_the_matching_memory() {
        let index = RankerIndex::build(&corpus());
        let hits = index.rank("the tests are flaky on CI again", 5);
        assert_eq!(hits[0].filename, "ci_flaky_tests.md");
        assert!(hits[0].score > 0.2 && hits[0].score < 1.0);
        let hits = index.rank("when is the next release being tagged?", 5);
        assert_eq!(hits[0].filename, "release_process.md");
        let hits = index.rank("add a database migration for the users table", 5);
        assert_eq!(hits[0].filename, "db_migrations.md");
    }

    #[test]
    fn unrelated_queries_get_nothing() {
        let index = RankerIndex::build(&corpus());
        for q in [
            "what's the weather in Paris",
            "the",
            "",
            "🙂",
            "tell me a joke",
        ] {
            assert!(index.rank(q, 5).is_empty(), "{q}");
        }
        // A word only in a body (not in filename, name or description) is not enough alone.
        assert!(index.rank("warm", 5).is_empty());
    }

    #[test]
    fn limit_and_prefilter() {
        let index = RankerIndex::build(&corpus());
        assert!(index.rank("flaky ci tests", 0).is_empty());
        assert_eq!(index.prefilter("postgres migrations", 2), vec![3, 0]);
        assert_eq!(index.prefilter("nothing matches", 10), vec![0, 1, 2, 3]);
        assert_eq!(
            RankerIndex::build(&[]).prefilter("x", 3),
            Vec::<usize>::new()
        );
    }
}
