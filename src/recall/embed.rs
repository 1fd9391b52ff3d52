//! Semantic recall over a store: the cosine of each memory to the query, with every memory's
//! vector kept in the sidecar ([`SIDECAR_NAME`]) so it is embedded once per content version.
//!
//! The sidecar is a cache: it is read without the store's lock, rebuilt entry by entry when
//! missing or untrustworthy, and rewritten with the store's atomic write (temp file + rename) when
//! anything changed; a failed rewrite costs a re-embedding next time, never a recall.

use super::index::ScoredMemory;
use super::semantic::{
    cosine, embed_text, query_segments, validate_vectors, EmbedFault, Sidecar, SidecarEntry,
    EMBED_BATCH, SIDECAR_NAME,
};
use crate::error::HostError;
use crate::host::{Clock, Embedder, FileSystem, Telemetry};
use crate::store::listing::MemoryFile;
use crate::store::Store;

/// Why the embedder could not answer a recall.
#[derive(Debug)]
pub enum EmbedFailure {
    /// The embedder failed (threw, rejected).
    Host(HostError),
    /// The embedder answered something unusable.
    Invalid(EmbedFault),
}

/// The cosine between `query` and each of `memories` (in order). Embeds what the sidecar lacks
/// (reading those memories' heads again: the index keeps only a hash of their text), in
/// batches of [`EMBED_BATCH`], then the query (with its [`query_segments`], in one call: a
/// memory's cosine is its best to the whole query or a segment); rewrites the sidecar when it
/// changed. A memory that can no longer be read gets cosine 0.
pub(crate) async fn cosines<F: FileSystem, C: Clock, T: Telemetry, E: Embedder>(
    store: &Store<F, C, T>,
    embedder: &E,
    memories: &[ScoredMemory],
    query: &str,
) -> Result<Vec<f32>, EmbedFailure> {
    let model = embedder.model();
    let path = format!("{}{SIDECAR_NAME}", store.dir());
    let stored = match store.fs().read_file(&path).await {
        Ok(text) => Sidecar::decode(&text, model),
        Err(_) => Sidecar::new(model, 0),
    };
    // The stored length binds new vectors only when some stored vector is kept.
    let mut dims = (!stored.entries.is_empty()).then_some(stored.dims);
    let mut changed = false;
    let mut fresh = Sidecar::new(model, stored.dims);
    let mut vectors: Vec<Option<Vec<f32>>> = Vec::with_capacity(memories.len());
    let mut stale: Vec<usize> = Vec::new();
    for (i, m) in memories.iter().enumerate() {
        let key = &m.header.filename;
        match stored.entries.get(key) {
            Some(entry) if entry.hash == m.embed_hash => {
                vectors.push(Some(entry.vector.clone()));
                fresh.entries.insert(key.clone(), entry.clone());
            }
            _ => {
                vectors.push(None);
                stale.push(i);
            }
        }
    }
    changed |= fresh.entries.len() != stored.entries.len();
    // The texts to embed: each stale memory's head, read again.
    let mut missing: Vec<(usize, String)> = Vec::with_capacity(stale.len());
    for i in stale {
        let Some(m) = memories.get(i) else { continue };
        let file = MemoryFile {
            rel: m.header.filename.clone(),
            path: m.header.file_path.clone(),
            // Only memories the walk admitted are candidates; read at their path.
            read: m.header.file_path.clone(),
            size: m.size,
            mtime_ms: m.header.mtime_ms,
        };
        if let Some(header) = store.read_memory_head(&file).await {
            missing.push((i, embed_text(&header)));
        }
    }
    for batch in missing.chunks(EMBED_BATCH) {
        let texts: Vec<String> = batch.iter().map(|(_, t)| t.clone()).collect();
        let answer = embedder.embed(&texts).await.map_err(EmbedFailure::Host)?;
        let answer = validate_vectors(answer, texts.len(), dims).map_err(EmbedFailure::Invalid)?;
        for ((i, _), vector) in batch.iter().zip(answer) {
            dims = Some(vector.len());
            // Keyed by the index's hash: the text read now is the one it hashed, unless the
            // file changed in between (then the next recall embeds it again).
            if let Some(m) = memories.get(*i) {
                fresh.entries.insert(
                    m.header.filename.clone(),
                    SidecarEntry {
                        hash: m.embed_hash.clone(),
                        vector: vector.clone(),
                    },
                );
                changed = true;
            }
            if let Some(slot) = vectors.get_mut(*i) {
                *slot = Some(vector);
            }
        }
    }
    let mut texts = vec![query.to_owned()];
    texts.extend(query_segments(query));
    let answer = embedder.embed(&texts).await.map_err(EmbedFailure::Host)?;
    let query_vectors =
        validate_vectors(answer, texts.len(), dims).map_err(EmbedFailure::Invalid)?;
    let Some(whole) = query_vectors.first() else {
        return Err(EmbedFailure::Invalid(EmbedFault::Count {
            expected: texts.len(),
            got: 0,
        }));
    };
    if changed {
        fresh.dims = whole.len();
        // A cache: a failed rewrite is retried by the next recall.
        let _ = store.write_atomic(&path, &fresh.encode()).await;
    }
    Ok(vectors
        .iter()
        .map(|v| {
            v.as_deref().map_or(0.0, |v| {
                query_vectors
                    .iter()
                    .map(|q| cosine(v, q))
                    .fold(f32::NEG_INFINITY, f32::max)
            })
        })
        .collect())
}
