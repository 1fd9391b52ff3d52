//! The recall index persisted between instances ([`INDEX_CACHE_NAME`]): what the index keeps
//! for each memory (manifest header, embedding-text hash, the ranker's term statistics), keyed
//! by (path, size, mtime), so that the first recall of a new instance reads only the files that
//! changed since some instance last wrote it. Pure: [`crate::recall::Recaller`] does its I/O.
//!
//! It is a cache, never trusted blindly: a file from another format, tokeniser (see
//! [`fingerprint`]) or directory, a torn or altered file (length and a word-wise FNV-1a
//! checksum of the body), or anything that does not parse is ignored whole, and the index is built by reading
//! the memories as without it. An entry is used only for a file the directory walk listed with
//! the same size and mtime, at the walk's own path: nothing in the cache names what is read.
//!
//! Format (text: the store writes strings): a header line
//! `memdir-index 1 <fingerprint> <directory hash> <checksum> <body length>`, then the body:
//! `T <n>` and `n` term lines (sorted, distinct), `E <n>` and `n` entry lines of tab-separated
//! fields (path, size and mtime as `f64` bits, type, name, description, embedding hash, field
//! lengths, then the memory's terms: ascending term numbers as gaps in printable base-32, each
//! followed by its four counts per field unless it is once in the body only). Strings escape `\`, tab, CR and LF; `-` is an absent optional string, `=text` a present
//! one.

use super::index::RecallIndex;
use super::ranker::{DocCounts, RankerIndex, RankerParams, FIELDS};
use crate::types::{MemoryHeader, MemoryType};

/// A file the directory walk listed: its path relative to the memory directory, its absolute
/// path, and its stat.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Listed<'f> {
    pub(crate) rel: &'f str,
    pub(crate) path: &'f str,
    pub(crate) size: f64,
    pub(crate) mtime_ms: f64,
}
use std::borrow::Cow;
use std::fmt::Write as _;

/// The index cache's file name inside the memory directory: hidden and not `.md`, so the scan,
/// lint, the listing and team sync never see it (as the vectors' `.memdir-vectors`).
///
/// ```
/// assert_eq!(memdir::recall::index_cache::INDEX_CACHE_NAME, ".memdir-index");
/// ```
pub const INDEX_CACHE_NAME: &str = ".memdir-index";

const MAGIC: &str = "memdir-index 1";

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

/// One memory as the cache holds it.
#[derive(Debug)]
struct Cached<'a> {
    rel: Cow<'a, str>,
    size: f64,
    mtime_ms: f64,
    memory_type: Option<MemoryType>,
    name: Option<String>,
    description: Option<String>,
    embed_hash: u128,
    doc: DocCounts,
    used: bool,
}

/// A decoded cache, consumed entry by entry into a [`RecallIndex`].
#[derive(Debug)]
pub(crate) struct IndexCache<'a> {
    terms: Vec<Cow<'a, str>>,
    /// The ranker's id of each cache term, once interned.
    ids: Vec<Option<u32>>,
    /// Sorted by `rel`, distinct.
    entries: Vec<Cached<'a>>,
}

impl<'a> IndexCache<'a> {
    /// How many memories the cache holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Where the cache holds `file` with its current size and mtime (not yet applied).
    pub(crate) fn position(&self, file: Listed<'_>) -> Option<usize> {
        let at = self
            .entries
            .binary_search_by(|e| (*e.rel).cmp(file.rel))
            .ok()?;
        let e = self.entries.get(at)?;
        (!e.used && e.size == file.size && e.mtime_ms == file.mtime_ms).then_some(at)
    }

    /// Index `file` (listed at walk position `order`) from the cache; false (nothing done) when
    /// the cache does not hold it with this size and mtime.
    #[cfg(test)]
    pub(crate) fn apply(&mut self, index: &mut RecallIndex, file: Listed<'_>, order: u32) -> bool {
        match self.position(file) {
            Some(at) => self.apply_at(index, file, at, order),
            None => false,
        }
    }

    /// [`IndexCache::apply`] at the [`IndexCache::position`] `at` of `file`.
    pub(crate) fn apply_at(
        &mut self,
        index: &mut RecallIndex,
        file: Listed<'_>,
        at: usize,
        order: u32,
    ) -> bool {
        let Some(entry) = self.entries.get_mut(at) else {
            return false;
        };
        if entry.used || *entry.rel != *file.rel {
            return false;
        }
        entry.used = true;
        let (lens, mut counts) = std::mem::take(&mut entry.doc);
        // Cache term numbers to the ranker's ids, in place.
        counts.retain_mut(|(t, _)| {
            let (Some(slot), Some(term)) =
                (self.ids.get_mut(*t as usize), self.terms.get(*t as usize))
            else {
                return false;
            };
            *t = match slot {
                Some(id) => *id,
                None => {
                    let id = index.ranker_mut().intern(term);
                    *slot = Some(id);
                    id
                }
            };
            true
        });
        let header = MemoryHeader {
            filename: file.rel.to_owned(),
            file_path: file.path.to_owned(),
            mtime_ms: file.mtime_ms,
            description: entry.description.take(),
            memory_type: entry.memory_type,
            name: entry.name.take(),
            body_head: String::new(),
        };
        index.upsert_counted(header, file.size, order, entry.embed_hash, (lens, counts));
        true
    }

    /// Read a cache file written for the memory directory `dir`; `None` when it cannot be
    /// trusted whole (another format, tokeniser or directory, torn, altered, malformed).
    pub(crate) fn decode(text: &'a str, dir: &str) -> Option<IndexCache<'a>> {
        let (head, body) = text.split_once('\n')?;
        let mut parts = head.strip_prefix(MAGIC)?.strip_prefix(' ')?.split(' ');
        let print = parse_hex(parts.next()?)?;
        let dir_hash = parse_hex(parts.next()?)?;
        let checksum = parse_hex(parts.next()?)?;
        let len = parse_dec(parts.next()?)?;
        if parts.next().is_some()
            || print != fingerprint()
            || dir_hash != fnv64(dir.as_bytes())
            || len != body.len()
            || checksum != fnv64(body.as_bytes())
        {
            return None;
        }
        let mut lines = body.split('\n');
        let n_terms = parse_dec(lines.next()?.strip_prefix("T ")?)?;
        let mut terms: Vec<Cow<'a, str>> = Vec::new();
        for _ in 0..n_terms {
            let term = unescape(lines.next()?)?;
            // Strictly ascending: distinct, so no two cache terms are one ranker term.
            if terms.last().is_some_and(|last| *last >= term) {
                return None;
            }
            terms.push(term);
        }
        let n_entries = parse_dec(lines.next()?.strip_prefix("E ")?)?;
        let mut entries = Vec::new();
        for _ in 0..n_entries {
            entries.push(parse_entry(lines.next()?, terms.len())?);
        }
        // The body ends with a newline, then nothing.
        if lines.next() != Some("") || lines.next().is_some() {
            return None;
        }
        // Written in path order: strictly ascending, so distinct.
        if entries.windows(2).any(|w| match w {
            [a, b] => a.rel >= b.rel,
            _ => false,
        }) {
            return None;
        }
        Some(IndexCache {
            ids: vec![None; terms.len()],
            terms,
            entries,
        })
    }
}

fn parse_entry(line: &str, n_terms: usize) -> Option<Cached<'_>> {
    let mut f = line.split('\t');
    let rel = unescape(f.next()?)?;
    let size = f64::from_bits(parse_hex(f.next()?)?);
    let mtime_ms = f64::from_bits(parse_hex(f.next()?)?);
    let memory_type = match f.next()? {
        "-" => None,
        t => Some(*MemoryType::ALL.get(parse_dec(t)?)?),
    };
    let name = optional(f.next()?)?;
    let description = optional(f.next()?)?;
    let hash = f.next()?;
    let (hi, lo) = (hash.get(..16)?, hash.get(16..)?);
    if lo.len() != 16 {
        return None;
    }
    let embed_hash = (u128::from(parse_hex(hi)?) << 64) | u128::from(parse_hex(lo)?);
    let mut lens = [0u32; FIELDS];
    let mut parts = f.next()?.split('.');
    for l in lens.iter_mut() {
        *l = u32::try_from(parse_dec(parts.next()?)?).ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    let stream = f.next()?.as_bytes();
    let mut counts = Vec::new();
    let (mut pos, mut next) = (0usize, 0u64);
    while pos < stream.len() {
        let v = get_varint(stream, &mut pos)?;
        let id = next.checked_add(v / 2)?;
        let mut tf = [0, 0, 0, 1];
        if v % 2 == 1 {
            for t in tf.iter_mut() {
                *t = u16::try_from(get_varint(stream, &mut pos)?).ok()?;
            }
        }
        if id >= n_terms as u64 {
            return None;
        }
        counts.push((id as u32, tf));
        next = id + 1;
    }
    if f.next().is_some() || rel.is_empty() {
        return None;
    }
    Some(Cached {
        rel,
        size,
        mtime_ms,
        memory_type,
        name,
        description,
        embed_hash,
        doc: (lens, counts),
        used: false,
    })
}

/// The cache text of `index`, for the memory directory `dir`.
pub(crate) fn encode(index: &RecallIndex, dir: &str) -> String {
    let ranker = index.ranker();
    let by_slot = ranker.slot_counts();
    // The terms some memory uses, in text order: cache term `k` is the `k`-th (so the table is
    // strictly ascending, which the reader checks, and no two cache terms are one term).
    let mut used = vec![false; ranker.term_count()];
    for &(id, _) in by_slot.iter().flatten() {
        if let Some(u) = used.get_mut(id as usize) {
            *u = true;
        }
    }
    let mut terms: Vec<u32> = (0..used.len() as u32)
        .filter(|&id| used.get(id as usize).copied().unwrap_or(false))
        .collect();
    crate::sort::sort_by(&mut terms, |&a, &b| {
        ranker
            .term_text(a)
            .unwrap_or_default()
            .cmp(ranker.term_text(b).unwrap_or_default())
    });
    let mut renumber: Vec<u32> = vec![0; ranker.term_count()];
    for (k, &id) in terms.iter().enumerate() {
        if let Some(r) = renumber.get_mut(id as usize) {
            *r = k as u32;
        }
    }
    let mut rows = String::new();
    let mut n_entries = 0usize;
    let mut doc: Vec<(u32, [u16; FIELDS])> = Vec::new();
    let mut entries: Vec<_> = index.cache_entries().collect();
    crate::sort::sort_by(&mut entries, |a, b| a.0.filename.cmp(&b.0.filename));
    for (header, size, embed_hash) in entries {
        let Some((slot, lens)) = ranker.doc_slot(&header.filename) else {
            continue;
        };
        n_entries += 1;
        escape_into(&mut rows, &header.filename);
        let _ = write!(
            rows,
            "\t{:x}\t{:x}\t",
            size.to_bits(),
            header.mtime_ms.to_bits()
        );
        match header
            .memory_type
            .and_then(|t| MemoryType::ALL.iter().position(|&a| a == t))
        {
            Some(t) => {
                let _ = write!(rows, "{t}");
            }
            None => rows.push('-'),
        }
        for opt in [&header.name, &header.description] {
            rows.push('\t');
            match opt {
                Some(s) => {
                    rows.push('=');
                    escape_into(&mut rows, s);
                }
                None => rows.push('-'),
            }
        }
        let [a, b, c, d] = lens;
        let _ = write!(
            rows,
            "\t{:016x}{:016x}\t{a}.{b}.{c}.{d}\t",
            (embed_hash >> 64) as u64,
            embed_hash as u64
        );
        doc.clear();
        doc.extend(
            by_slot
                .get(slot as usize)
                .into_iter()
                .flatten()
                .map(|&(id, tf)| (renumber.get(id as usize).copied().unwrap_or(0), tf)),
        );
        crate::sort::sort_by(&mut doc, |a, b| a.0.cmp(&b.0));
        // Ascending cache ids as gaps; a term found once in the body only (the common case)
        // takes one number, any other its four counts after it.
        let mut next = 0u32;
        for &(id, tf) in &doc {
            let plain = tf == [0, 0, 0, 1];
            put_varint(&mut rows, u64::from(id - next) * 2 + u64::from(!plain));
            if !plain {
                for t in tf {
                    put_varint(&mut rows, u64::from(t));
                }
            }
            next = id + 1;
        }
        rows.push('\n');
    }
    let mut body = String::with_capacity(rows.len() + terms.len() * 12 + 32);
    let _ = writeln!(body, "T {}", terms.len());
    for &id in &terms {
        escape_into(&mut body, ranker.term_text(id).unwrap_or_default());
        body.push('\n');
    }
    let _ = writeln!(body, "E {n_entries}");
    body.push_str(&rows);
    format!(
        "{MAGIC} {:x} {:x} {:x} {}\n{body}",
        fingerprint(),
        fnv64(dir.as_bytes()),
        fnv64(body.as_bytes()),
        body.len()
    )
}

/// A number as base-32 digits, low first: `P`..`o` for a digit more follow, `0`..`O` for the
/// last (printable, never a separator).
fn put_varint(out: &mut String, mut v: u64) {
    while v >= 32 {
        out.push(char::from(0x50 + (v & 31) as u8));
        v >>= 5;
    }
    out.push(char::from(0x30 + v as u8));
}

/// The number of [`put_varint`] at `*pos` of `bytes`, moving past it.
fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let c = *bytes.get(*pos)?;
        *pos += 1;
        let digit = u64::from(c.checked_sub(0x30)?);
        if shift > 60 || digit >= 64 {
            return None;
        }
        v |= (digit & 31) << shift;
        if digit < 32 {
            return Some(v);
        }
        shift += 5;
    }
}

/// A hash of what this build of the library derives from a memory's text (its terms and
/// counts, field lengths, embedding text) for a probe memory exercising the tokeniser: a cache
/// written by a build that tokenises differently does not match.
pub(crate) fn fingerprint() -> u64 {
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
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let word = <[u8; 8]>::try_from(w).unwrap_or_default();
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(PRIME);
    }
    let mut tail = [0u8; 8];
    for (t, &b) in tail.iter_mut().zip(words.remainder()) {
        *t = b;
    }
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(PRIME);
    (h ^ bytes.len() as u64).wrapping_mul(PRIME)
}

fn parse_hex(s: &str) -> Option<u64> {
    parse_radix(s, 16)
}

fn parse_dec(s: &str) -> Option<usize> {
    usize::try_from(parse_radix(s, 10)?).ok()
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

fn optional(s: &str) -> Option<Option<String>> {
    match s {
        "-" => Some(None),
        _ => Some(Some(unescape(s.strip_prefix('=')?)?.into_owned())),
    }
}

fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape(s: &str) -> Option<Cow<'_, str>> {
    if !s.contains('\\') {
        return Some(Cow::Borrowed(s));
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(match chars.next()? {
                '\\' => '\\',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                _ => return None,
            });
        } else {
            out.push(c);
        }
    }
    Some(Cow::Owned(out))
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
                path: &self.path,
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
                    description: (i % 4 != 0).then(|| text(&mut rng, 8)),
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
        let mut cache = IndexCache::decode(&text, "/m/").expect("own cache decodes");
        assert_eq!(cache.len(), 120);
        let mut loaded = RecallIndex::new(RankerParams::default());
        for (order, (f, _)) in mems.iter().enumerate() {
            assert!(
                cache.apply(&mut loaded, f.listed(), order as u32),
                "{}",
                f.rel
            );
        }
        assert_eq!(loaded.edits(), 0, "nothing was read");
        for q in QUERIES {
            assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
        }
        // Re-encoding the loaded index gives the same file.
        assert_eq!(encode(&loaded, "/m/"), text);
    }

    #[test]
    fn only_matching_keys_are_taken() {
        let mems = memories(7, 30);
        let text = encode(&fresh(&mems), "/m/");
        let mut cache = IndexCache::decode(&text, "/m/").unwrap();
        let mut index = RecallIndex::new(RankerParams::default());
        let (f, _) = &mems[3];
        assert!(!cache.apply(
            &mut index,
            file(&f.rel, f.size + 1.0, f.mtime_ms).listed(),
            0
        ));
        assert!(!cache.apply(
            &mut index,
            file(&f.rel, f.size, f.mtime_ms + 1.0).listed(),
            0
        ));
        assert!(!cache.apply(
            &mut index,
            file("absent.md", f.size, f.mtime_ms).listed(),
            0
        ));
        assert!(cache.apply(&mut index, f.listed(), 0));
        assert!(
            !cache.apply(&mut index, f.listed(), 0),
            "an entry is used once"
        );
        assert_eq!(index.len(), 1);
        // Another directory, another version, another tokeniser: ignored whole.
        assert!(IndexCache::decode(&text, "/other/").is_none());
        let old = text.replacen("memdir-index 1 ", "memdir-index 0 ", 1);
        assert!(IndexCache::decode(&old, "/m/").is_none());
        let print = format!("{:x}", fingerprint());
        let other = text.replacen(&print, &format!("{:x}", fingerprint() ^ 1), 1);
        assert!(IndexCache::decode(&other, "/m/").is_none());
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
                // A well-formed header over a random body (huge counts included).
                _ => {
                    let body = format!(
                        "T {}\n{}\nE {}\n{}\t0\t0\t9\t-\t-\tzz\t1.2\t{:x}\n",
                        rng.next(),
                        text(&mut rng, 3),
                        rng.next() % 5,
                        text(&mut rng, 2),
                        rng.next()
                    );
                    format!(
                        "{MAGIC} {:x} {:x} {:x} {}\n{body}",
                        fingerprint(),
                        fnv64(b"/m/"),
                        fnv64(body.as_bytes()),
                        body.len()
                    )
                }
            };
            let Some(mut cache) = IndexCache::decode(&candidate, "/m/") else {
                continue;
            };
            // Accepted: then it is the cache itself (a change that still checks out).
            taken += 1;
            let mut loaded = RecallIndex::new(RankerParams::default());
            for (order, (f, h)) in mems.iter().enumerate() {
                if !cache.apply(&mut loaded, f.listed(), order as u32) {
                    loaded.upsert(h.clone(), f.size, order as u32);
                }
            }
            for q in QUERIES {
                assert_eq!(answers(&mut loaded, q), answers(&mut built, q), "{q}");
            }
        }
        assert!(taken < 3000);
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
}
