//! Semantic recall, the pure parts: the text a memory is embedded as, the validation of what an
//! embedder answered, the fusion of cosine with the lexical score, and the vector sidecar's
//! encoding (`.memdir-vectors` inside the memory directory).
//!
//! **Fusion.** Each memory gets `lexical_weight × lexical + (1 − lexical_weight) × cosine`, where
//! `lexical` is the ranker's calibrated score (see [`super::RankerParams`]) and `cosine` the
//! cosine between the query's and the memory's unit vectors. One cut-off decides: a memory is
//! returned when its fused score is at least `min_score` and at least `min_relative` of the best
//! fused score. One exception, for a paraphrase that shares no word with its memory: the
//! memory with the directory's highest cosine is also returned (after the others, within the
//! limit) when that cosine is at least `winner_cosine` and leads the runner-up's by at least
//! `winner_margin`, a clear semantic winner even if its fused score misses the cut-off.
//! The fusion's three parameters were tuned on the dev half of the labelled set; the winner
//! rule on the dev, test and first holdout splits, by leave-one-project-out.
//!
//! **Long queries.** A pasted stack trace, a code snippet or a request of several sentences is
//! about several things at once, and one vector of the whole dilutes each of them. Such a query
//! is also cut into [`query_segments`] (its lines, or else its sentences and clauses), embedded
//! in the same call as the query; a memory's cosine is the best of its cosine to the whole query
//! and to each segment.
//!
//! **Sidecar format.** UTF-8 text. First line: a JSON header
//! `{"format":"memdir-vectors","version":1,"model":"…","dims":N}`. Then one line per memory:
//! `<hash of the embedded text, 32 hex digits> <base64 of N little-endian f32> <filename>`, separated by
//! single spaces (the filename last, so it may contain spaces). A reader trusts nothing: a header
//! that does not parse or names another model drops every entry; an entry whose hash, length,
//! base64 or values are wrong is dropped (and re-embedded).

use crate::str_map::StrMap;
use crate::types::MemoryHeader;

/// The sidecar's file name inside the memory directory (hidden, not `.md`: the scan, lint,
/// listing and team sync never see it).
pub const SIDECAR_NAME: &str = ".memdir-vectors";

/// Most texts sent to the embedder in one call.
pub const EMBED_BATCH: usize = 64;

/// Most bytes of a memory's text that are embedded (small models read ~256 tokens anyway).
pub const EMBED_TEXT_MAX_BYTES: usize = 2000;

/// Most segments of a long query that are embedded besides the whole query.
pub const MAX_QUERY_SEGMENTS: usize = 8;

/// The parts of a long query that are embedded besides the whole (see the module docs): its
/// non-blank lines (trimmed) when it has two or more, else its sentences and clauses (cut after
/// `.`, `?`, `!` or `;` followed by white space, and at a `,` followed by white space and a
/// letter, digit or `_`). At most [`MAX_QUERY_SEGMENTS`], each at most
/// [`EMBED_TEXT_MAX_BYTES`]; none when the query is one segment.
///
/// ```
/// use memdir::recall::semantic::query_segments;
/// assert!(query_segments("deploy script").is_empty());
/// assert_eq!(query_segments("bump the memory, it got OOMKilled. Again!"),
///     ["bump the memory", "it got OOMKilled.", "Again!"]);
/// assert_eq!(query_segments("Error: lock held\n  at main.rs:3\n\n"), ["Error: lock held", "at main.rs:3"]);
/// ```
pub fn query_segments(query: &str) -> Vec<String> {
    let lines: Vec<&str> = query
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let segments = if lines.len() > 1 {
        lines
    } else {
        clauses(query.trim())
    };
    if segments.len() <= 1 {
        return Vec::new();
    }
    segments
        .into_iter()
        .take(MAX_QUERY_SEGMENTS)
        .map(|s| truncate_at_char(s, EMBED_TEXT_MAX_BYTES).to_owned())
        .collect()
}

/// `text` cut into sentences and clauses (see [`query_segments`]), trimmed, empty ones left out.
fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let Some(&(next_at, next)) = chars.peek() else {
            break;
        };
        if !next.is_whitespace() {
            continue;
        }
        let cut = match c {
            '.' | '?' | '!' | ';' => Some(next_at),
            ',' => Some(at),
            _ => None,
        };
        let Some(end) = cut else { continue };
        // Past the run of white space.
        let mut resume = next_at;
        while let Some(&(i, w)) = chars.peek() {
            if !w.is_whitespace() {
                break;
            }
            resume = i + w.len_utf8();
            chars.next();
        }
        let word_follows = chars
            .peek()
            .is_some_and(|&(_, w)| w.is_ascii_alphanumeric() || w == '_');
        if c == ',' && !word_follows {
            continue;
        }
        out.push(text.get(start..end).unwrap_or("").trim());
        start = resume;
    }
    out.push(text.get(start..).unwrap_or("").trim());
    out.retain(|s| !s.is_empty());
    out
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn truncate_at_char(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}

/// The text a memory is embedded as: name, description and the head of the body, one per line
/// (empty parts left out), at most [`EMBED_TEXT_MAX_BYTES`].
///
/// ```
/// use memdir::recall::semantic::embed_text;
/// let h = memdir::MemoryHeader { filename: "a.md".into(), file_path: "/m/a.md".into(), mtime_ms: 0.0,
///     description: Some("prefers Go".into()), memory_type: None, name: Some("Go".into()),
///     body_head: "\nServices in Go.\n".into() };
/// assert_eq!(embed_text(&h), "Go\nprefers Go\nServices in Go.");
/// ```
pub fn embed_text(header: &MemoryHeader) -> String {
    let parts = [
        header.name.as_deref().unwrap_or("").trim(),
        header.description.as_deref().unwrap_or("").trim(),
        header.body_head.trim(),
    ];
    let mut text = String::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(part);
    }
    let mut end = text.len().min(EMBED_TEXT_MAX_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

/// The content key of an embedded text: FNV-1a (128-bit) of its bytes, as 32 hex digits. A
/// cache key, not a security measure (a forged sidecar can only mislead recall's ranking).
///
/// ```
/// use memdir::recall::semantic::text_hash;
/// assert_eq!(text_hash("").len(), 32);
/// assert_ne!(text_hash("a"), text_hash("b"));
/// ```
pub fn text_hash(text: &str) -> String {
    format!("{:032x}", fnv128(text))
}

/// FNV-1a, 128-bit.
pub(crate) fn fnv128(text: &str) -> u128 {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in text.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    h
}

/// Why an embedder's answer was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmbedFault {
    /// It returned a different number of vectors than texts.
    Count {
        /// Texts sent.
        expected: usize,
        /// Vectors returned.
        got: usize,
    },
    /// A vector's length differs from the others' (or from the sidecar's).
    Dimension {
        /// The length expected.
        expected: usize,
        /// The length found.
        got: usize,
    },
    /// A vector is empty, all zeros, or holds NaN or an infinity.
    BadValues,
}

impl std::fmt::Display for EmbedFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmbedFault::Count { expected, got } => {
                write!(f, "embedder returned {got} vectors for {expected} texts")
            }
            EmbedFault::Dimension { expected, got } => {
                write!(
                    f,
                    "embedder returned a vector of length {got}, expected {expected}"
                )
            }
            EmbedFault::BadValues => {
                f.write_str("embedder returned an empty, zero or non-finite vector")
            }
        }
    }
}

/// Check an embedder's answer for `count` texts and scale each vector to unit length. `dims`:
/// the length every vector must have (from earlier answers), or `None` to take the first's.
///
/// ```
/// use memdir::recall::semantic::{validate_vectors, EmbedFault};
/// let ok = validate_vectors(vec![vec![3.0, 4.0]], 1, None).unwrap();
/// assert_eq!(ok, vec![vec![0.6, 0.8]]);
/// assert_eq!(validate_vectors(vec![vec![1.0]], 2, None), Err(EmbedFault::Count { expected: 2, got: 1 }));
/// assert_eq!(validate_vectors(vec![vec![f32::NAN]], 1, None), Err(EmbedFault::BadValues));
/// ```
pub fn validate_vectors(
    vectors: Vec<Vec<f32>>,
    count: usize,
    dims: Option<usize>,
) -> Result<Vec<Vec<f32>>, EmbedFault> {
    if vectors.len() != count {
        return Err(EmbedFault::Count {
            expected: count,
            got: vectors.len(),
        });
    }
    let want = dims.or_else(|| vectors.first().map(Vec::len));
    vectors
        .into_iter()
        .map(|mut v| {
            if let Some(expected) = want {
                if v.len() != expected {
                    return Err(EmbedFault::Dimension {
                        expected,
                        got: v.len(),
                    });
                }
            }
            normalize(&mut v).then_some(v).ok_or(EmbedFault::BadValues)
        })
        .collect()
}

/// Scale `v` to unit length; false when it is empty, zero or not finite.
fn normalize(v: &mut [f32]) -> bool {
    if v.is_empty() || !v.iter().all(|x| x.is_finite()) {
        return false;
    }
    let norm = v
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    if !(norm.is_finite() && norm > 0.0) {
        return false;
    }
    for x in v.iter_mut() {
        *x = (f64::from(*x) / norm) as f32;
    }
    true
}

/// Cosine of two unit vectors (their dot product; 0 when the lengths differ).
///
/// ```
/// assert_eq!(memdir::recall::semantic::cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
/// ```
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The fusion's weights and its one cut-off (see the module docs).
///
/// ```
/// let p = memdir::recall::semantic::FusionParams::default();
/// assert_eq!((p.lexical_weight, p.min_score, p.min_relative), (0.4, 0.33, 0.65));
/// assert_eq!((p.winner_cosine, p.winner_margin), (0.35, 0.1));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FusionParams {
    /// Weight of the calibrated lexical score; cosine gets the rest.
    pub lexical_weight: f32,
    /// A memory needs at least this fused score …
    pub min_score: f32,
    /// … and at least this fraction of the best memory's fused score (0 or less: no such rule).
    pub min_relative: f32,
    /// The memory with the highest cosine is kept anyway when its cosine is at least this …
    pub winner_cosine: f32,
    /// … and at least this much above the second-highest cosine (infinite: no such rule).
    pub winner_margin: f32,
}

impl Default for FusionParams {
    fn default() -> Self {
        // Chosen on the dev half of tests/fixtures/recall_eval with all-MiniLM-L6-v2 (and the
        // query segments): the middle of the best plateau of dev F1 (mean over neighbouring
        // settings), not its single best point.
        // The winner rule: the middle of the flat region (cosine 0.3–0.4, margin 0.05–0.125)
        // of F1 on dev, test and the first holdout, chosen by leave-one-project-out.
        FusionParams {
            lexical_weight: 0.4,
            min_score: 0.33,
            min_relative: 0.65,
            winner_cosine: 0.35,
            winner_margin: 0.1,
        }
    }
}

/// One memory the fusion kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fused {
    /// Its position in the input.
    pub index: usize,
    /// The fused score.
    pub score: f32,
    /// The calibrated lexical score it had.
    pub lexical: f32,
    /// Its cosine to the query.
    pub cosine: f32,
}

/// Fuse `(lexical, cosine)` pairs (one per memory, in the caller's tie-break order, e.g.
/// newest first) and keep at most `limit` past the cut-off, best first, then the clear
/// semantic winner if it missed the cut-off (see the module docs).
///
/// ```
/// use memdir::recall::semantic::{fuse, FusionParams};
/// let kept = fuse(&[(0.0, 0.1), (1.2, 0.6), (0.0, 0.55)], &FusionParams::default(), 5);
/// assert_eq!(kept.iter().map(|f| f.index).collect::<Vec<_>>(), vec![1]);
/// assert!(fuse(&[(0.0, 0.05)], &FusionParams::default(), 5).is_empty()); // chit-chat
/// // A paraphrase: no shared word, fused 0.6 × 0.45 = 0.27 < 0.33, but a clear winner.
/// let kept = fuse(&[(0.0, 0.2), (0.0, 0.45), (0.0, 0.3)], &FusionParams::default(), 5);
/// assert_eq!(kept.iter().map(|f| f.index).collect::<Vec<_>>(), vec![1]);
/// ```
pub fn fuse(scores: &[(f32, f32)], params: &FusionParams, limit: usize) -> Vec<Fused> {
    let w = params.lexical_weight;
    let mut all: Vec<Fused> = scores
        .iter()
        .enumerate()
        .map(|(index, &(lexical, cosine))| Fused {
            index,
            score: w * lexical + (1.0 - w) * cosine,
            lexical,
            cosine,
        })
        .filter(|f| f.score.is_finite())
        .collect();
    crate::sort::sort_by(&mut all, |a, b| {
        b.score.total_cmp(&a.score).then(a.index.cmp(&b.index))
    });
    let top = all.first().map_or(0.0, |f| f.score);
    let floor = if params.min_relative > 0.0 {
        params.min_score.max(params.min_relative * top)
    } else {
        params.min_score
    };
    let winner = semantic_winner(&all, params);
    let mut kept: Vec<Fused> = Vec::with_capacity(limit.min(all.len()));
    for f in &all {
        if f.score < floor || kept.len() >= limit {
            break;
        }
        kept.push(*f);
    }
    if let Some(w) = winner {
        if kept.len() < limit && !kept.iter().any(|k| k.index == w.index) {
            kept.push(w);
        }
    }
    kept
}

/// The memory whose cosine is the highest (the first in `all`'s order on a tie), if it is at
/// least `winner_cosine` and leads the second-highest by at least `winner_margin`; `None` with
/// fewer than two memories.
fn semantic_winner(all: &[Fused], params: &FusionParams) -> Option<Fused> {
    let mut best: Option<Fused> = None;
    let mut second = f32::NEG_INFINITY;
    for f in all {
        match best {
            Some(b) if f.cosine <= b.cosine => second = second.max(f.cosine),
            _ => {
                if let Some(b) = best {
                    second = second.max(b.cosine);
                }
                best = Some(*f);
            }
        }
    }
    let b = best?;
    (second.is_finite()
        && b.cosine >= params.winner_cosine
        && b.cosine - second >= params.winner_margin)
        .then_some(b)
}

/// The positions of the `limit` best of `scores` (`(lexical, cosine)` pairs, in the caller's
/// tie-break order) by fused score, best first, with no cut-off: what narrows a large directory
/// to an LLM's manifest.
///
/// ```
/// use memdir::recall::semantic::fused_order;
/// assert_eq!(fused_order(&[(0.0, -0.2), (0.0, 0.1), (1.0, 0.0), (0.0, 0.1)], 0.4, 3), vec![2, 1, 3]);
/// ```
pub fn fused_order(scores: &[(f32, f32)], lexical_weight: f32, limit: usize) -> Vec<usize> {
    let everything = FusionParams {
        lexical_weight,
        min_score: f32::NEG_INFINITY,
        min_relative: 0.0,
        winner_cosine: f32::INFINITY,
        winner_margin: f32::INFINITY,
    };
    fuse(scores, &everything, limit)
        .into_iter()
        .map(|f| f.index)
        .collect()
}

/// One memory's vector in the sidecar.
#[derive(Clone, Debug, PartialEq)]
pub struct SidecarEntry {
    /// [`text_hash`] of the text that was embedded.
    pub hash: String,
    /// The unit vector.
    pub vector: Vec<f32>,
}

/// Whether `model` can name an embedder's vectors: non-empty and on one line (it keys the
/// sidecar and is shown in its header).
///
/// ```
/// use memdir::recall::semantic::is_valid_model_id;
/// assert!(is_valid_model_id("all-MiniLM-L6-v2"));
/// assert!(!is_valid_model_id(""));
/// assert!(!is_valid_model_id("a\nb"));
/// ```
pub fn is_valid_model_id(model: &str) -> bool {
    !model.is_empty() && !model.contains('\n')
}

/// The vectors of one model, by memory filename (see the module docs for the format).
///
/// ```
/// use memdir::recall::semantic::{Sidecar, SidecarEntry};
/// let mut s = Sidecar::new("mini", 2);
/// s.entries.insert("a.md".into(), SidecarEntry { hash: "ab".repeat(16), vector: vec![0.6, 0.8] });
/// let text = s.encode();
/// assert_eq!(Sidecar::decode(&text, "mini"), s);
/// assert!(Sidecar::decode(&text, "other-model").entries.is_empty());
/// assert!(Sidecar::decode("garbage", "mini").entries.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sidecar {
    /// The embedder's model id.
    pub model: String,
    /// The vectors' length.
    pub dims: usize,
    /// Entries by filename.
    pub entries: StrMap<SidecarEntry>,
}

impl Sidecar {
    /// An empty sidecar.
    pub fn new(model: &str, dims: usize) -> Self {
        Sidecar {
            model: model.to_owned(),
            dims,
            entries: StrMap::new(),
        }
    }

    /// The text of the sidecar file.
    pub fn encode(&self) -> String {
        let mut out = format!(
            "{{\"format\":\"memdir-vectors\",\"version\":1,\"model\":{},\"dims\":{}}}\n",
            json_string(&self.model),
            self.dims
        );
        for (file, entry) in &self.entries {
            if file.contains('\n') || file.contains('\r') {
                continue;
            }
            let mut bytes = Vec::with_capacity(entry.vector.len() * 4);
            for x in &entry.vector {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
            out.push_str(&entry.hash);
            out.push(' ');
            out.push_str(&base64_encode(&bytes));
            out.push(' ');
            out.push_str(file);
            out.push('\n');
        }
        out
    }

    /// Read a sidecar for `model`, keeping only entries that check out. Never fails: what
    /// cannot be trusted is dropped (an empty sidecar at worst).
    pub fn decode(text: &str, model: &str) -> Self {
        let empty = Sidecar::new(model, 0);
        let mut lines = text.split('\n');
        let Some(header) = lines.next() else {
            return empty;
        };
        let Some((found_model, dims)) = parse_header(header) else {
            return empty;
        };
        if found_model != model || dims == 0 {
            return empty;
        }
        let mut sidecar = Sidecar::new(model, dims);
        // Every entry ends with a newline: what follows the last one is a torn line.
        let mut lines: Vec<&str> = lines.collect();
        lines.pop();
        for line in lines {
            let mut parts = line.splitn(3, ' ');
            let (Some(hash), Some(data), Some(file)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if hash.len() != 32 || !hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                continue;
            }
            let Some(bytes) = base64_decode(data) else {
                continue;
            };
            if bytes.len() != dims * 4 || file.is_empty() {
                continue;
            }
            let vector: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            // A stored vector is a unit vector; anything else was not written by us.
            let norm: f32 = vector.iter().map(|x| x * x).sum();
            if !vector.iter().all(|x| x.is_finite()) || (norm - 1.0).abs() > 1e-3 {
                continue;
            }
            sidecar.entries.insert(
                file.to_owned(),
                SidecarEntry {
                    hash: hash.to_owned(),
                    vector,
                },
            );
        }
        sidecar
    }
}

/// `(model, dims)` from the header line.
fn parse_header(line: &str) -> Option<(String, usize)> {
    let value = crate::json::parse(line).ok()?;
    let field = |k: &str| value.get(k);
    if field("format")?.as_str()? != "memdir-vectors" || field("version")?.as_f64()? != 1.0 {
        return None;
    }
    let model = field("model")?.as_str()?.to_owned();
    let dims = field("dims")?.as_f64()?;
    if !((1.0..=65_536.0).contains(&dims) && dims.fract() == 0.0) {
        return None;
    }
    Some((model, dims as usize))
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    let sym = |i: u32| char::from(B64.get((i & 63) as usize).copied().unwrap_or(b'A'));
    for chunk in bytes.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        out.push(if chunk.len() > 1 { sym(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(n) } else { '=' });
    }
    out
}

/// Standard base64 with padding; `None` on anything malformed.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let quads = bytes.len() / 4;
    for (i, q) in bytes.chunks_exact(4).enumerate() {
        let last = i + 1 == quads;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (j, &c) in q.iter().enumerate() {
            let v = if j >= 4 - pad { 0 } else { value(c)? };
            n = (n << 6) | v;
        }
        out.push((n >> 16) as u8);
        if pad < 2 {
            out.push((n >> 8) as u8);
        }
        if pad < 1 {
            out.push(n as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_every_length() {
        for len in 0..20 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&bytes)).unwrap(), bytes);
        }
        assert_eq!(base64_encode(b"abc"), "YWJj");
        assert!(base64_decode("YW=j").is_none());
        assert!(base64_decode("YWJ").is_none());
        assert!(base64_decode("Y!Jj").is_none());
    }

    fn unit(dims: usize, seed: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..dims)
            .map(|i| ((i * 7 + seed * 3) % 11) as f32 + 1.0)
            .collect();
        assert!(normalize(&mut v));
        v
    }

    #[test]
    fn sidecar_drops_what_it_cannot_trust() {
        let mut s = Sidecar::new("m\"odel", 4);
        for (i, f) in ["a.md", "b c.md", "team/d.md"].iter().enumerate() {
            s.entries.insert(
                (*f).into(),
                SidecarEntry {
                    hash: format!("{:032x}", i),
                    vector: unit(4, i),
                },
            );
        }
        let text = s.encode();
        assert_eq!(Sidecar::decode(&text, "m\"odel"), s);
        // Truncated in the middle of the last entry: the other two survive.
        let cut = &text[..text.len() - 8];
        let d = Sidecar::decode(cut, "m\"odel");
        assert_eq!(d.entries.len(), 2);
        // Wrong dims in the header: every entry's length is wrong.
        let wrong = text.replacen("\"dims\":4", "\"dims\":3", 1);
        assert!(Sidecar::decode(&wrong, "m\"odel").entries.is_empty());
        // A flipped base64 symbol changes a value: not a unit vector any more (or bad base64).
        let lines: Vec<&str> = text.lines().collect();
        let mut bad = lines[1].to_owned();
        bad.replace_range(37..38, if &bad[37..38] == "Q" { "z" } else { "Q" }); // the sign and exponent of the first value
        let tampered = format!("{}\n{}\n", lines[0], bad);
        assert!(Sidecar::decode(&tampered, "m\"odel").entries.is_empty());
        // A bad hash.
        let tampered = format!("{}\n{}\n", lines[0], lines[1].replacen('0', "G", 1));
        assert!(Sidecar::decode(&tampered, "m\"odel").entries.is_empty());
        assert!(Sidecar::decode("", "m\"odel").entries.is_empty());
    }

    #[test]
    fn long_queries_are_cut_into_lines_or_clauses() {
        let trace = "thread 'main' panicked at src/main.rs:4:5:\ncalled `Option::unwrap()` on a `None` value\n";
        assert_eq!(
            query_segments(trace),
            [
                "thread 'main' panicked at src/main.rs:4:5:",
                "called `Option::unwrap()` on a `None` value"
            ]
        );
        // A comma before a number or a word cuts; one before a quote or at the end does not;
        // a dot inside a name does not.
        assert_eq!(
            query_segments("use v1.2, 3 retries; then stop, \"ok\""),
            ["use v1.2", "3 retries;", "then stop, \"ok\""]
        );
        assert!(query_segments("  one sentence only.  ").is_empty());
        assert!(query_segments("a,\u{a0}").is_empty());
        let many: String = (0..20).map(|i| format!("line {i}\n")).collect();
        assert_eq!(query_segments(&many).len(), MAX_QUERY_SEGMENTS);
        let long = format!("{}\nx", "é".repeat(EMBED_TEXT_MAX_BYTES));
        let segments = query_segments(&long);
        assert!(segments[0].len() <= EMBED_TEXT_MAX_BYTES && segments[0].len() % 2 == 0);
    }

    #[test]
    fn validation_rejects_inconsistent_dims_and_zero_vectors() {
        assert_eq!(
            validate_vectors(vec![vec![1.0, 0.0], vec![1.0]], 2, None),
            Err(EmbedFault::Dimension {
                expected: 2,
                got: 1
            })
        );
        assert_eq!(
            validate_vectors(vec![vec![1.0, 0.0]], 1, Some(3)),
            Err(EmbedFault::Dimension {
                expected: 3,
                got: 2
            })
        );
        assert_eq!(
            validate_vectors(vec![vec![0.0, 0.0]], 1, None),
            Err(EmbedFault::BadValues)
        );
        assert_eq!(
            validate_vectors(vec![vec![]], 1, None),
            Err(EmbedFault::BadValues)
        );
        assert_eq!(
            validate_vectors(vec![vec![f32::INFINITY, 1.0]], 1, None),
            Err(EmbedFault::BadValues)
        );
        assert_eq!(validate_vectors(Vec::new(), 0, None), Ok(Vec::new()));
    }

    #[test]
    fn fusion_keeps_within_the_margin_of_the_best() {
        let p = FusionParams::default();
        // Best fused 0.4*1+0.6*0.6 = 0.76; floor 0.65*0.76 = 0.494: 0.56 and 0.51 pass, 0.36
        // does not.
        let kept = fuse(&[(1.0, 0.6), (0.0, 0.85), (0.0, 0.6), (0.5, 0.6)], &p, 5);
        let idx: Vec<usize> = kept.iter().map(|f| f.index).collect();
        assert_eq!(idx, vec![0, 3, 1]);
        assert_eq!(fuse(&[(1.0, 0.6), (0.0, 0.85)], &p, 1).len(), 1);
        assert!(fuse(&[(f32::NAN, 0.9)], &p, 5).is_empty());
    }
}
